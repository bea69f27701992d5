//! A fixed-capacity ring buffer and a line tokenizer.
const std = @import("std");
const Allocator = std.mem.Allocator;

pub const Error = error{ Full, Empty };

pub fn RingBuffer(comptime T: type) type {
    return struct {
        const Self = @This();

        items: []T,
        head: usize = 0,
        len: usize = 0,

        pub fn init(allocator: Allocator, capacity: usize) !Self {
            return .{ .items = try allocator.alloc(T, capacity) };
        }

        pub fn deinit(self: *Self, allocator: Allocator) void {
            allocator.free(self.items);
        }

        pub fn push(self: *Self, item: T) Error!void {
            if (self.len == self.items.len) return Error.Full;
            self.items[(self.head + self.len) % self.items.len] = item;
            self.len += 1;
        }

        pub fn pop(self: *Self) Error!T {
            if (self.len == 0) return Error.Empty;
            const item = self.items[self.head];
            self.head = (self.head + 1) % self.items.len;
            self.len -= 1;
            return item;
        }
    };
}

pub const Token = union(enum) {
    word: []const u8,
    number: i64,
    end,

    pub fn isEnd(self: Token) bool {
        return self == .end;
    }
};

pub const Kind = enum {
    word,
    number,

    pub fn name(self: Kind) []const u8 {
        return @tagName(self);
    }
};

pub const Tokenizer = struct {
    source: []const u8,
    index: usize = 0,

    pub fn next(self: *Tokenizer) Token {
        while (self.index < self.source.len and self.source[self.index] == ' ') self.index += 1;
        if (self.index >= self.source.len) return .end;
        const start = self.index;
        while (self.index < self.source.len and self.source[self.index] != ' ') self.index += 1;
        const text = self.source[start..self.index];
        const value = std.fmt.parseInt(i64, text, 10) catch return .{ .word = text };
        return .{ .number = value };
    }
};

fn countWords(source: []const u8) usize {
    var tokenizer = Tokenizer{ .source = source };
    var count: usize = 0;
    while (!tokenizer.next().isEnd()) count += 1;
    return count;
}

test "ring buffer keeps order" {
    var ring = try RingBuffer(u8).init(std.testing.allocator, 2);
    defer ring.deinit(std.testing.allocator);
    try ring.push(1);
    try std.testing.expectEqual(@as(u8, 1), try ring.pop());
    try std.testing.expectEqual(@as(usize, 2), countWords("a b"));
}
