#include "src/install/piece_writer.h"

#include <utility>

namespace wv::install {

PieceWriter::PieceWriter(std::size_t pieces, std::size_t piece_bytes, Consume consume)
    : piece_bytes_(piece_bytes), consume_(std::move(consume)) {
  pieces = pieces < 2 ? 2 : pieces;  // one being filled while another is consumed
  for (std::size_t i = 0; i < pieces; ++i) {
    buffers_.push_back(std::make_unique_for_overwrite<char[]>(piece_bytes));
    free_.push_back(pieces - 1 - i);
  }
  thread_ = std::thread([this] { run(); });
}

PieceWriter::~PieceWriter() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  thread_.join();
}

std::span<char> PieceWriter::next() {
  std::unique_lock<std::mutex> lock(mutex_);
  if (!held_) {
    changed_.wait(lock, [&] { return !free_.empty() || error_; });
    if (error_) {
      // The consumer has stopped and reads no buffer any more: any one will do, and submit()
      // returns the error before its content matters.
      held_ = 0;
    } else {
      held_ = free_.back();
      free_.pop_back();
    }
  }
  return {buffers_[*held_].get(), piece_bytes_};
}

Result<void> PieceWriter::submit(std::size_t length) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (error_) return *error_;
    if (length == 0 || !held_) return {};
    queue_.emplace_back(*held_, length);
    held_.reset();
  }
  changed_.notify_all();
  return {};
}

Result<void> PieceWriter::finish() {
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait(lock, [&] { return error_ || (queue_head_ == queue_.size() && !consuming_); });
  if (error_) return *error_;
  return {};
}

void PieceWriter::run() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (true) {
    changed_.wait(lock, [&] { return stopping_ || (!error_ && queue_head_ < queue_.size()); });
    if (stopping_ || error_) return;
    const auto [buffer, length] = queue_[queue_head_++];
    consuming_ = true;
    lock.unlock();
    Result<void> consumed = consume_(std::string_view(buffers_[buffer].get(), length));
    lock.lock();
    consuming_ = false;
    if (!consumed) error_ = std::move(consumed).error();
    else free_.push_back(buffer);
    if (queue_head_ == queue_.size()) {
      queue_.clear();
      queue_head_ = 0;
    }
    changed_.notify_all();
  }
}

}  // namespace wv::install
