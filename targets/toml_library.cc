// toml++'s implementation, compiled once for the whole program (targets/project_*.cc and
// lock/lockfile_toml.cc use it through TOML_HEADER_ONLY=0, from the wv_toml CMake target)
// instead of Debian's shared libtomlplusplus: one library fewer to load at every start-up.
// toml++'s internal assertions off, as in Debian's release build of the library that was
// linked before: in a debug (sanitizer) build one of them (parse_key) aborts on hostile text
// that the parser otherwise reports as an error (tests/targets "arbitrary bytes").
#define TOML_ASSERT(expr) static_assert(true)
#define TOML_IMPLEMENTATION
#include <toml++/toml.h>
