'use strict';

const EventEmitter = require('events');
const { promisify } = require('util');

const DEFAULT_TIMEOUT = 5000;

/** Parse a duration such as "5s" into milliseconds. */
const parseDuration = (text) => {
  const match = /^(\d+)(ms|s|m)$/.exec(text);
  if (!match) {
    throw new Error(`bad duration: ${text}`);
  }
  const factor = { ms: 1, s: 1000, m: 60000 }[match[2]];
  return Number(match[1]) * factor;
};

const sleep = async function (ms) {
  await new Promise((resolve) => setTimeout(resolve, ms));
};

function* backoff(start, limit) {
  for (let delay = start; delay < limit; delay *= 2) {
    yield delay;
  }
}

class Poller extends EventEmitter {
  interval = 1000;

  handleTick = async () => {
    const value = await this.fetch();
    this.emit('value', value);
  };

  constructor(fetch, options = {}) {
    super();
    this.fetch = fetch;
    this.interval = options.interval || this.interval;
  }

  start() {
    this.timer = setInterval(this.handleTick, this.interval);
  }

  stop() {
    clearInterval(this.timer);
  }
}

const api = {
  baseUrl: 'https://example.invalid',
  get(path) {
    return fetch(this.baseUrl + path);
  },
  post: function (path, body) {
    return fetch(this.baseUrl + path, { method: 'POST', body: JSON.stringify(body) });
  },
  remove: (path) => fetch(api.baseUrl + path, { method: 'DELETE' }),
};

module.exports.withTimeout = function (promise, ms = DEFAULT_TIMEOUT) {
  return Promise.race([promise, sleep(ms).then(() => Promise.reject(new Error('timeout')))]);
};

exports.retry = async (task, attempts = 3) => {
  for (const delay of backoff(100, 100 * 2 ** attempts)) {
    try {
      return await task();
    } catch (error) {
      await sleep(delay);
    }
  }
  return task();
};

Poller.prototype.restart = function () {
  this.stop();
  this.start();
};

module.exports = {
  Poller,
  api,
  parseDuration,
  describe() {
    return 'poller utilities';
  },
  readFile: promisify(require('fs').readFile),
};
