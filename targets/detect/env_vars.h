// The process environment as an interface (style.md §6.9 rule 5): detection reads overrides
// and paths through it, so tests pass a map instead of touching the real environment.
// Cheap to include.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace wv::detect {

/// Read access to environment variables.
class Environment {
 public:
  virtual ~Environment() = default;
  /// The value of `name`, or nullopt when unset (an empty value is returned as "").
  virtual std::optional<std::string> get(std::string_view name) const = 0;
};

/// The real environment of this process (getenv).
class ProcessEnvironment final : public Environment {
 public:
  std::optional<std::string> get(std::string_view name) const override;
};

/// A fixed map, for tests and for callers that captured the environment earlier.
class MapEnvironment final : public Environment {
 public:
  MapEnvironment() = default;
  /// An environment holding exactly `values`.
  explicit MapEnvironment(std::map<std::string, std::string> values) : values_(std::move(values)) {}
  /// Sets (or replaces) one variable.
  void set(std::string name, std::string value) { values_[std::move(name)] = std::move(value); }
  std::optional<std::string> get(std::string_view name) const override;

 private:
  std::map<std::string, std::string> values_;
};

}  // namespace wv::detect
