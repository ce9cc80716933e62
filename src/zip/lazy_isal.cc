// ISA-L's inflate, which install/wheel_extract.cc runs on wheel members, defined here so that
// libisal is opened by dlopen on the first member inflated (base/lazy_library.h) rather than
// linked: libisal binds all its symbols at load (BIND_NOW), a cost every command paid at
// start-up. As in lazy_libzip.cc, a function wvlock starts to use is added here.
#include <isa-l/igzip_lib.h>

#include <atomic>

#include "src/base/lazy_library.h"

#ifndef WV_ISAL_SONAME
#define WV_ISAL_SONAME "libisal.so.2"
#endif

namespace {

wv::LazyLibrary libisal(WV_ISAL_SONAME, "libisal2");
std::atomic<decltype(&::isal_inflate_init)> inflate_init_slot{nullptr};
std::atomic<decltype(&::isal_inflate)> inflate_slot{nullptr};

}  // namespace

extern "C" {

void isal_inflate_init(inflate_state* state) {
  wv::lazy_function(libisal, inflate_init_slot, "isal_inflate_init")(state);
}

int isal_inflate(inflate_state* state) {
  return wv::lazy_function(libisal, inflate_slot, "isal_inflate")(state);
}

}  // extern "C"
