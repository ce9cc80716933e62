// Work over the members of a big wheel cut into one contiguous slice per core: the cache's
// per-file checks (install/unpacked_cache.cc) of a 12,000-file wheel are a tenth of a second
// of stat() calls on one core otherwise, while the other waits.
#pragma once

#include <algorithm>
#include <cstddef>
#include <thread>
#include <vector>

namespace wv::install {

/// How many slices in_slices() cuts `count` items into: one per core, but at least
/// `min_per_slice` items each (a thread costs more than a few stat() calls), and at least one.
inline std::size_t slice_count(std::size_t count, std::size_t min_per_slice) {
  const std::size_t cores = std::max(1u, std::thread::hardware_concurrency());
  const std::size_t most = count / std::max<std::size_t>(1, min_per_slice);
  return std::clamp<std::size_t>(most, 1, cores);
}

/// Calls `slice(begin, end)` for the slice_count() contiguous slices covering [0, count), all
/// but the first on threads of their own. Returns each slice's answer, in slice order.
template <class Answer, class Slice>
std::vector<Answer> in_slices(std::size_t count, std::size_t min_per_slice, Slice slice) {
  const std::size_t slices = slice_count(count, min_per_slice);
  std::vector<Answer> answers(slices);
  std::vector<std::thread> threads;
  for (std::size_t s = 1; s < slices; ++s) {
    threads.emplace_back(
        [&, s] { answers[s] = slice(count * s / slices, count * (s + 1) / slices); });
  }
  answers[0] = slice(0, count / slices);
  for (std::thread& thread : threads) thread.join();
  return answers;
}

}  // namespace wv::install
