#include "src/base/lazy_library.h"

#include <dlfcn.h>
#include <unistd.h>

#include "src/base/output.h"
#include "src/base/str.h"

namespace wv {

namespace {

[[noreturn]] void unavailable(const char* soname, const char* package, const char* why) {
  write_err(str_cat("error: wvlock needs ", in_backticks(soname), " for this command but cannot use it: ",
                    why != nullptr ? why : "unknown error",
                    "\nhint: install it (Debian and Ubuntu: `apt-get install ", package, "`)\n"));
  ::_exit(3);
}

}  // namespace

void* LazyLibrary::require(const char* symbol) {
  std::call_once(opened_, [this] {
    // RTLD_LOCAL: its symbols stay out of the global scope; wvlock reaches them only here.
    handle_ = ::dlopen(soname_, RTLD_NOW | RTLD_LOCAL);
    if (handle_ == nullptr) unavailable(soname_, package_, ::dlerror());
  });
  void* address = ::dlsym(handle_, symbol);
  if (address == nullptr) unavailable(soname_, package_, ::dlerror());
  return address;
}

}  // namespace wv
