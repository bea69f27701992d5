/* A growable byte buffer. */
#include <stdlib.h>
#include <string.h>

#define BUFFER_MIN 16

struct buffer {
    char *data;
    size_t length;
    size_t capacity;
};

typedef struct {
    int code;
    const char *message;
} status;

enum mode { MODE_READ, MODE_WRITE };

union word {
    uint32_t value;
    unsigned char bytes[4];
};

static const status OK = {0, "ok"};

static int grow(struct buffer *buffer, size_t needed)
{
    size_t capacity = buffer->capacity ? buffer->capacity : BUFFER_MIN;
    while (capacity < needed) {
        capacity *= 2;
    }
    char *data = realloc(buffer->data, capacity);
    if (data == NULL) {
        return -1;
    }
    buffer->data = data;
    buffer->capacity = capacity;
    return 0;
}

struct buffer *buffer_new(void)
{
    return calloc(1, sizeof(struct buffer));
}

status buffer_append(struct buffer *buffer, const char *bytes, size_t count)
{
    if (buffer->length + count > buffer->capacity && grow(buffer, buffer->length + count) != 0) {
        status failed = {12, "out of memory"};
        return failed;
    }
    memcpy(buffer->data + buffer->length, bytes, count);
    buffer->length += count;
    return OK;
}

void buffer_free(struct buffer *buffer)
{
    if (buffer != NULL) {
        free(buffer->data);
        free(buffer);
    }
}
