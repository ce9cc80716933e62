// The PEP 508 marker environment ("Environment markers": the values a marker is evaluated
// against), as one plain struct of strings. Targets build it from a declared platform; install
// builds it from the live interpreter facts. Cheap to include (std only).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace wv::pkg {

/// The values of every PEP 508 marker variable for one interpreter on one machine.
/// Field names are the marker variable names; `python_full_version` and friends hold the text
/// exactly as `platform`/`sys` would report it (e.g. "3.12.4", "3.12", "linux", "x86_64").
struct MarkerEnvironment {
  std::string implementation_name;             ///< sys.implementation.name, e.g. "cpython"
  std::string implementation_version;          ///< e.g. "3.12.4"
  std::string os_name;                         ///< os.name, e.g. "posix"
  std::string platform_machine;                ///< platform.machine(), e.g. "x86_64"
  std::string platform_python_implementation;  ///< e.g. "CPython"
  std::string platform_release;                ///< platform.release()
  std::string platform_system;                 ///< platform.system(), e.g. "Linux"
  std::string platform_version;                ///< platform.version()
  std::string python_full_version;             ///< platform.python_version(), e.g. "3.12.4"
  std::string python_version;                  ///< major.minor, e.g. "3.12"
  std::string sys_platform;                    ///< sys.platform, e.g. "linux"

  /// The value of the marker variable `variable` (a PEP 508 name such as "os_name"; the
  /// legacy spelling "platform_python_implementation" only, no dotted aliases), or nullopt
  /// when `variable` is not an environment variable (e.g. "extra", or a typo).
  std::optional<std::string_view> get(std::string_view variable) const {
    if (variable == "implementation_name") return implementation_name;
    if (variable == "implementation_version") return implementation_version;
    if (variable == "os_name") return os_name;
    if (variable == "platform_machine") return platform_machine;
    if (variable == "platform_python_implementation") return platform_python_implementation;
    if (variable == "platform_release") return platform_release;
    if (variable == "platform_system") return platform_system;
    if (variable == "platform_version") return platform_version;
    if (variable == "python_full_version") return python_full_version;
    if (variable == "python_version") return python_version;
    if (variable == "sys_platform") return sys_platform;
    return std::nullopt;
  }

  friend bool operator==(const MarkerEnvironment&, const MarkerEnvironment&) = default;
};

}  // namespace wv::pkg
