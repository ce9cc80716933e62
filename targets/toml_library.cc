// toml++'s implementation, compiled once for the whole program (targets/project_file.cc and
// lock/lockfile_toml.cc use it through TOML_HEADER_ONLY=0, from the wv_toml CMake target)
// instead of Debian's shared libtomlplusplus: one library fewer to load at every start-up.
#define TOML_IMPLEMENTATION
#include <toml++/toml.h>
