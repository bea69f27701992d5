// Package cache is an LRU cache with expiry.
package cache

import (
	"container/list"
	"sync"
	"time"
)

// Clock tells the time; tests replace it.
type Clock interface {
	Now() time.Time
}

type systemClock struct{}

func (systemClock) Now() time.Time { return time.Now() }

type entry struct {
	key     string
	value   []byte
	expires time.Time
}

// Cache is safe for concurrent use.
type Cache struct {
	mu       sync.Mutex
	capacity int
	ttl      time.Duration
	order    *list.List
	items    map[string]*list.Element
	clock    Clock
}

// Option configures a Cache.
type Option func(*Cache)

// WithClock sets the clock.
func WithClock(clock Clock) Option {
	return func(c *Cache) { c.clock = clock }
}

// New returns an empty cache.
func New(capacity int, ttl time.Duration, options ...Option) *Cache {
	c := &Cache{capacity: capacity, ttl: ttl, order: list.New(), items: map[string]*list.Element{}, clock: systemClock{}}
	for _, option := range options {
		option(c)
	}
	return c
}

// Get returns the value stored under key, if it has not expired.
func (c *Cache) Get(key string) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	element, ok := c.items[key]
	if !ok {
		return nil, false
	}
	item := element.Value.(*entry)
	if c.clock.Now().After(item.expires) {
		c.remove(element)
		return nil, false
	}
	c.order.MoveToFront(element)
	return item.value, true
}

// Put stores value under key, evicting the least recently used entry when full.
func (c *Cache) Put(key string, value []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if element, ok := c.items[key]; ok {
		c.remove(element)
	}
	c.items[key] = c.order.PushFront(&entry{key, value, c.clock.Now().Add(c.ttl)})
	if c.order.Len() > c.capacity {
		c.remove(c.order.Back())
	}
}

func (c *Cache) remove(element *list.Element) {
	c.order.Remove(element)
	delete(c.items, element.Value.(*entry).key)
}
