// Wheel unpacking without a cache: extract into a private tree beside the staging folder,
// then link from it (install/wheel_extract.h, install/wheel_link.h); and the member-name and
// RECORD rules both share.
#include "src/install/wheel_unpack.h"

#include <filesystem>

#include "src/base/file_system.h"
#include "src/base/str.h"
#include "src/install/wheel_extract.h"
#include "src/install/wheel_link.h"

namespace wv::install {

std::string check_member_name(std::string_view name) {
  if (name.empty()) return "an empty name";
  if (name.front() == '/') return "an absolute path";
  if (name.find('\\') != std::string_view::npos) return "a backslash";
  for (unsigned char c : name) {
    if (c < 0x20 || c == 0x7f) return "a control character";
  }
  if (name.size() >= 2 && name[1] == ':') return "a drive letter";
  std::string_view trimmed = name;
  if (trimmed.back() == '/') trimmed.remove_suffix(1);
  for (std::string_view part : split(trimmed, '/')) {
    if (part == "..") return "a `..` component";
    if (part == "." || part.empty()) return "an empty or `.` component";
  }
  return "";
}

Result<std::vector<RecordRow>> parse_record(std::string_view text, std::string_view what) {
  std::vector<RecordRow> rows;
  std::size_t i = 0;
  int line = 1;
  while (i < text.size()) {
    std::vector<std::string> fields(1);
    bool quoted_any = false;
    // One CSV record.
    while (true) {
      std::string& field = fields.back();
      if (i < text.size() && text[i] == '"') {
        quoted_any = true;
        ++i;
        while (true) {
          if (i >= text.size()) {
            return make_error(ErrorCode::kParse,
                              str_cat(what, ":", line, ": expected a closing `\"`"));
          }
          if (text[i] == '"') {
            if (i + 1 < text.size() && text[i + 1] == '"') {
              field += '"';
              i += 2;
              continue;
            }
            ++i;
            break;
          }
          if (text[i] == '\n') ++line;
          field += text[i++];
        }
      }
      while (i < text.size() && text[i] != ',' && text[i] != '\n' && text[i] != '\r') {
        field += text[i++];
      }
      if (i < text.size() && text[i] == ',') {
        ++i;
        fields.emplace_back();
        continue;
      }
      break;
    }
    if (i < text.size() && text[i] == '\r') ++i;
    if (i < text.size() && text[i] == '\n') ++i;
    if (fields.size() == 1 && fields[0].empty() && !quoted_any) {
      ++line;
      continue;  // a blank line
    }
    if (fields.size() != 3) {
      return make_error(ErrorCode::kParse, str_cat(what, ":", line, ": expected 3 fields (path, "
                                                   "hash, size), found ", fields.size()));
    }
    if (fields[0].find('\0') != std::string::npos) {
      return make_error(ErrorCode::kInvalidInput, str_cat(what, ":", line, ": a path with NUL"));
    }
    rows.push_back(RecordRow{std::move(fields[0]), std::move(fields[1]), std::move(fields[2])});
    ++line;
  }
  return rows;
}

Result<LinkedWheel> unpack_linked(FileSystem& file_system, const std::string& wheel_path,
                                  const UnpackOptions& options) {
  // Beside the staging folder, so hard links reach it; gone when this returns (the links keep
  // the files).
  const std::string tree = options.staging + ".tree";
  (void)file_system.remove_all(tree);
  WV_TRY(file_system.create_directories(tree));
  const ScopedRemoval removal(file_system, tree);
  ExtractOptions extract;
  extract.limits = options.limits;
  extract.wheel_name = options.wheel_name;
  extract.threads = options.threads;
  WV_ASSIGN_OR_RETURN(ExtractedWheel wheel, extract_wheel(file_system, wheel_path, tree, extract));
  const std::string name = options.wheel_name.empty()
                               ? std::string(path_filename(wheel_path))
                               : options.wheel_name;
  WV_TRY(check_layout(wheel, name));
  return link_wheel(file_system, wheel, tree, options, LinkMode::kAuto);
}

Result<UnpackedWheel> unpack_wheel(const std::string& wheel_path, const UnpackOptions& options) {
  RealFileSystem file_system;
  WV_ASSIGN_OR_RETURN(LinkedWheel linked, unpack_linked(file_system, wheel_path, options));
  WV_TRY(write_record(file_system, linked, options.staging));
  return std::move(linked.unpacked);
}

}  // namespace wv::install
