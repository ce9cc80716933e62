// libzip's functions as wvlock calls them, defined here so that libzip itself is opened by
// dlopen on the first call (base/lazy_library.h) rather than linked: libzip loads libcrypto and
// libbz2, whose symbol bindings every command paid at start-up, unzipping or not. Each function
// forwards to libzip's own, looked up once. A function used by wvlock must be listed here (the
// link fails otherwise: no other definition is linked).
#include <zip.h>

#include <atomic>

#include "src/base/lazy_library.h"

#ifndef WV_ZIP_SONAME
#define WV_ZIP_SONAME "libzip.so.4"
#endif

namespace {

wv::LazyLibrary libzip(WV_ZIP_SONAME, "libzip4");

#define WV_ZIP_SLOT(name) std::atomic<decltype(&::name)> name##_slot{nullptr};
WV_ZIP_SLOT(zip_discard)
WV_ZIP_SLOT(zip_error_fini)
WV_ZIP_SLOT(zip_error_init)
WV_ZIP_SLOT(zip_error_init_with_code)
WV_ZIP_SLOT(zip_error_strerror)
WV_ZIP_SLOT(zip_fclose)
WV_ZIP_SLOT(zip_file_get_error)
WV_ZIP_SLOT(zip_file_get_external_attributes)
WV_ZIP_SLOT(zip_fopen_index)
WV_ZIP_SLOT(zip_fread)
WV_ZIP_SLOT(zip_get_error)
WV_ZIP_SLOT(zip_get_name)
WV_ZIP_SLOT(zip_get_num_entries)
WV_ZIP_SLOT(zip_open)
WV_ZIP_SLOT(zip_open_from_source)
WV_ZIP_SLOT(zip_source_buffer_create)
WV_ZIP_SLOT(zip_source_free)
WV_ZIP_SLOT(zip_stat_index)
WV_ZIP_SLOT(zip_stat_init)
#undef WV_ZIP_SLOT

}  // namespace

#define WV_ZIP(name) wv::lazy_function(libzip, name##_slot, #name)

extern "C" {

void zip_discard(zip_t* archive) { WV_ZIP(zip_discard)(archive); }
void zip_error_fini(zip_error_t* error) { WV_ZIP(zip_error_fini)(error); }
void zip_error_init(zip_error_t* error) { WV_ZIP(zip_error_init)(error); }
void zip_error_init_with_code(zip_error_t* error, int code) {
  WV_ZIP(zip_error_init_with_code)(error, code);
}
const char* zip_error_strerror(zip_error_t* error) { return WV_ZIP(zip_error_strerror)(error); }
int zip_fclose(zip_file_t* file) { return WV_ZIP(zip_fclose)(file); }
zip_error_t* zip_file_get_error(zip_file_t* file) { return WV_ZIP(zip_file_get_error)(file); }
int zip_file_get_external_attributes(zip_t* archive, zip_uint64_t index, zip_flags_t flags,
                                     zip_uint8_t* system, zip_uint32_t* attributes) {
  return WV_ZIP(zip_file_get_external_attributes)(archive, index, flags, system, attributes);
}
zip_file_t* zip_fopen_index(zip_t* archive, zip_uint64_t index, zip_flags_t flags) {
  return WV_ZIP(zip_fopen_index)(archive, index, flags);
}
zip_int64_t zip_fread(zip_file_t* file, void* buffer, zip_uint64_t size) {
  return WV_ZIP(zip_fread)(file, buffer, size);
}
zip_error_t* zip_get_error(zip_t* archive) { return WV_ZIP(zip_get_error)(archive); }
const char* zip_get_name(zip_t* archive, zip_uint64_t index, zip_flags_t flags) {
  return WV_ZIP(zip_get_name)(archive, index, flags);
}
zip_int64_t zip_get_num_entries(zip_t* archive, zip_flags_t flags) {
  return WV_ZIP(zip_get_num_entries)(archive, flags);
}
zip_t* zip_open(const char* path, int flags, int* error) { return WV_ZIP(zip_open)(path, flags, error); }
zip_t* zip_open_from_source(zip_source_t* source, int flags, zip_error_t* error) {
  return WV_ZIP(zip_open_from_source)(source, flags, error);
}
zip_source_t* zip_source_buffer_create(const void* data, zip_uint64_t size, int free_data,
                                       zip_error_t* error) {
  return WV_ZIP(zip_source_buffer_create)(data, size, free_data, error);
}
void zip_source_free(zip_source_t* source) { WV_ZIP(zip_source_free)(source); }
int zip_stat_index(zip_t* archive, zip_uint64_t index, zip_flags_t flags, zip_stat_t* stat) {
  return WV_ZIP(zip_stat_index)(archive, index, flags, stat);
}
void zip_stat_init(zip_stat_t* stat) { WV_ZIP(zip_stat_init)(stat); }

}  // extern "C"
