// Values derived from content-addressed inputs, kept across runs: the METADATA inside a wheel is
// fixed by the wheel's sha256, so once read (by HTTP range requests, which no response cache
// keeps) it can serve every later run, offline ones too. The src/net cache implements it.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace wv {

class DerivedCache {
 public:
  virtual ~DerivedCache() = default;
  /// The value stored under `key`, or nullopt (never stored, or found damaged and dropped).
  virtual std::optional<std::string> load_derived(std::string_view key) = 0;
  /// Best effort: a value that cannot be written is only not kept.
  virtual void store_derived(std::string_view key, std::string_view value) = 0;
};

}  // namespace wv
