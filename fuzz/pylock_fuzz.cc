// pylock.toml (PEP 751) as wvlock reads and writes it (lock/lockfile.h). Properties: a lockfile
// that reads (and so validates) writes text that reads back and validates, and writing that
// again gives the same bytes: read -> write -> read -> write is a fixed point; canonicalize()
// before writing changes nothing.
#include <string>

#include "fuzz/fuzz_target.h"
#include "lock/lockfile.h"

WV_FUZZ_TARGET(pylock) {
  // Twice the usual bound: the example project's golden lockfile (70 KB) is a seed.
  if (size > 2 * wv::fuzz::kMaxTextInput) return;
  auto lockfile = wv::lock::read_lockfile(wv::fuzz::as_text(data, size), "pylock.toml");
  if (!lockfile) return;
  const std::string written = wv::lock::write_lockfile(lockfile.value());
  // The writer's output does not depend on the order the reader kept.
  wv::lock::Lockfile sorted = lockfile.value();
  wv::lock::canonicalize(sorted);
  WV_FUZZ_CHECK(wv::lock::write_lockfile(sorted) == written, "canonicalize() changes what is written");
  auto again = wv::lock::read_lockfile(written, "pylock.toml");
  WV_FUZZ_CHECK(again.has_value(), "written lockfile does not read back: " +
                                       (again ? std::string() : again.error().message) + "\n" + written);
  auto valid = wv::lock::validate(again.value(), "pylock.toml");
  WV_FUZZ_CHECK(valid.has_value(), "written lockfile does not validate");
  const std::string rewritten = wv::lock::write_lockfile(again.value());
  WV_FUZZ_CHECK(rewritten == written, "write(read(write(x))) != write(x):\n" + written + "\n---\n" + rewritten);
}
