// A big member's inflated pieces handed to a thread of its own that hashes and writes them, so
// that the member takes as long as its inflate rather than inflate + SHA-256 + write. A torch
// wheel's biggest library (400 MB to 1.5 GB) is one deflate stream, which only one thread can
// inflate: on a machine with more cores than busy extraction threads it is the cold sync's
// critical path, and its hash and write were a third of it.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string_view>
#include <thread>
#include <vector>

#include "src/base/result.h"

namespace wv::install {

class PieceWriter {
 public:
  using Consume = std::function<Result<void>(std::string_view)>;

  /// `consume` runs on the writer's thread, once per submitted piece, in order; its first
  /// error ends the consuming and is what submit() and finish() return from then on.
  PieceWriter(std::size_t pieces, std::size_t piece_bytes, Consume consume);
  ~PieceWriter();  ///< stops the thread; pieces not yet consumed are dropped
  PieceWriter(const PieceWriter&) = delete;
  PieceWriter& operator=(const PieceWriter&) = delete;

  /// The buffer to fill next: the same one until it is submitted, then a free one (waiting
  /// while every buffer is queued).
  std::span<char> next();
  /// Queues the first `length` bytes of the buffer next() gave (0: nothing is queued and the
  /// buffer stays the next one). The consumer's error, if it met one.
  Result<void> submit(std::size_t length);
  /// Waits until every queued piece is consumed; the consumer's error, if any.
  Result<void> finish();

 private:
  void run();

  std::vector<std::unique_ptr<char[]>> buffers_;
  std::size_t piece_bytes_;
  Consume consume_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<std::size_t> free_;                       ///< buffer indexes
  std::vector<std::pair<std::size_t, std::size_t>> queue_;  ///< (buffer, length), FIFO
  std::size_t queue_head_ = 0;
  std::optional<std::size_t> held_;  ///< the buffer next() gave out
  bool consuming_ = false;           ///< the thread is inside consume_
  bool stopping_ = false;
  std::optional<Error> error_;
  std::thread thread_;
};

}  // namespace wv::install
