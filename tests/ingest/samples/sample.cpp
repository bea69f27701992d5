// A thread-safe bounded queue and a worker pool.
#include <condition_variable>
#include <functional>
#include <mutex>
#include <queue>
#include <thread>
#include <vector>

namespace pool {

template <typename T>
class BoundedQueue {
 public:
  explicit BoundedQueue(std::size_t capacity) : capacity_(capacity) {}

  void push(T item) {
    std::unique_lock<std::mutex> lock(mutex_);
    not_full_.wait(lock, [this] { return items_.size() < capacity_; });
    items_.push(std::move(item));
    not_empty_.notify_one();
  }

  T pop() {
    std::unique_lock<std::mutex> lock(mutex_);
    not_empty_.wait(lock, [this] { return !items_.empty(); });
    T item = std::move(items_.front());
    items_.pop();
    not_full_.notify_one();
    return item;
  }

 private:
  std::size_t capacity_;
  std::queue<T> items_;
  std::mutex mutex_;
  std::condition_variable not_empty_;
  std::condition_variable not_full_;
};

struct Task {
  std::function<void()> run;
  bool stop = false;
};

class WorkerPool {
 public:
  WorkerPool(std::size_t workers, std::size_t capacity);
  ~WorkerPool();
  void submit(std::function<void()> job) { queue_.push(Task{std::move(job)}); }

 private:
  BoundedQueue<Task> queue_;
  std::vector<std::thread> threads_;
};

WorkerPool::WorkerPool(std::size_t workers, std::size_t capacity) : queue_(capacity) {
  for (std::size_t i = 0; i < workers; ++i) {
    threads_.emplace_back([this] {
      for (Task task = queue_.pop(); !task.stop; task = queue_.pop()) {
        task.run();
      }
    });
  }
}

WorkerPool::~WorkerPool() {
  for (std::size_t i = 0; i < threads_.size(); ++i) {
    queue_.push(Task{{}, true});
  }
  for (auto &thread : threads_) {
    thread.join();
  }
}

}  // namespace pool

int main() {
  pool::WorkerPool workers(4, 16);
  workers.submit([] {});
  return 0;
}
