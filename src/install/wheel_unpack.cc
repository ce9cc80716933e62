// Wheel unpacking (the one .cc that includes libzip): PyPA binary distribution format,
// "Installing a wheel" steps 1-2 (spread + RECORD), with every member checked against RECORD.
#include "install/wheel_unpack.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zip.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <set>

#include "base/sha256.h"
#include "base/str.h"
#include "pkg/name.h"
#include "pkg/version.h"
#include "pkg/wheel_filename.h"
#include "install/zip_handle.h"

namespace wv::install {
namespace {

std::string join_rel(std::string_view base, std::string_view leaf) {
  if (base.empty()) return std::string(leaf);
  if (leaf.empty()) return std::string(base);
  return str_cat(base, "/", leaf);
}

/// One archive member we will install.
struct Member {
  zip_uint64_t index = 0;
  std::string name;
  std::uint64_t size = 0;
  bool executable = false;
  bool directory = false;
};

/// Reads a member in chunks, calling `sink` for each; checks it yields exactly its declared
/// size (libzip checks the CRC at the end).
template <class Sink>
Result<void> read_member(zip_t* archive, const Member& member, std::string_view wheel,
                         Sink&& sink) {
  ZipFilePtr file(zip_fopen_index(archive, member.index, 0));
  if (!file) {
    return make_error(ErrorCode::kIntegrity,
                      str_cat("cannot read ", in_backticks(member.name), " in ",
                              in_backticks(wheel), ": ", zip_error_text(zip_get_error(archive))));
  }
  std::string buffer(std::size_t{1} << 16, '\0');
  std::uint64_t total = 0;
  while (true) {
    zip_int64_t got = zip_fread(file.get(), buffer.data(), buffer.size());
    if (got < 0) {
      return make_error(ErrorCode::kIntegrity,
                        str_cat("cannot read ", in_backticks(member.name), " in ",
                                in_backticks(wheel), ": ",
                                zip_error_text(zip_file_get_error(file.get()))));
    }
    if (got == 0) break;
    total += static_cast<std::uint64_t>(got);
    if (total > member.size) {
      return make_error(ErrorCode::kIntegrity,
                        str_cat(in_backticks(member.name), " in ", in_backticks(wheel),
                                " expands past its declared size"));
    }
    WV_TRY(sink(std::string_view(buffer.data(), static_cast<std::size_t>(got))));
  }
  if (total != member.size) {
    return make_error(ErrorCode::kIntegrity,
                      str_cat(in_backticks(member.name), " in ", in_backticks(wheel), " is ",
                              total, " bytes, its zip header says ", member.size));
  }
  return {};
}

Result<std::string> read_member_text(zip_t* archive, const Member& member, std::string_view wheel,
                                     Limit limit_id, std::uint64_t limit) {
  if (member.size > limit) {
    return limit_error(limit_id, str_cat(in_backticks(member.name), " in ", in_backticks(wheel)),
                       member.size, limit);
  }
  std::string text;
  text.reserve(member.size);
  WV_TRY(read_member(archive, member, wheel, [&](std::string_view chunk) -> Result<void> {
    text.append(chunk);
    return {};
  }));
  return text;
}

/// A file created in the staging tree (never following a symlink, replacing an earlier copy).
class StagedFile {
 public:
  /// `made` caches the folders already created (one mkdir walk per folder, not per file).
  static Result<StagedFile> create(const std::string& path, bool executable,
                                   std::set<std::string>& made) {
    std::error_code ec;
    std::string parent = std::filesystem::path(path).parent_path().string();
    if (made.insert(parent).second) std::filesystem::create_directories(parent, ec);
    if (ec) {
      return make_error(ErrorCode::kIo,
                        str_cat("cannot create the folder of ", in_backticks(path), ": ",
                                ec.message()));
    }
    const int flags = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC;
    const mode_t mode = executable ? 0755 : 0644;
    int fd = ::open(path.c_str(), flags, mode);
    if (fd < 0 && errno == EEXIST) {  // a later wheel replaces an earlier one's file
      ::unlink(path.c_str());
      fd = ::open(path.c_str(), flags, mode);
    }
    if (fd < 0) {
      return make_error(ErrorCode::kIo,
                        str_cat("cannot create ", in_backticks(path), ": ", std::strerror(errno)));
    }
    StagedFile file;
    file.fd_ = fd;
    file.path_ = path;
    return file;
  }
  StagedFile() = default;
  StagedFile(StagedFile&& other) noexcept : fd_(other.fd_), path_(std::move(other.path_)) {
    other.fd_ = -1;
  }
  ~StagedFile() {
    if (fd_ >= 0) ::close(fd_);
  }
  Result<void> write(std::string_view bytes) {
    while (!bytes.empty()) {
      ssize_t wrote = ::write(fd_, bytes.data(), bytes.size());
      if (wrote < 0) {
        if (errno == EINTR) continue;
        return make_error(ErrorCode::kIo,
                          str_cat("cannot write ", in_backticks(path_), ": ", std::strerror(errno)));
      }
      bytes.remove_prefix(static_cast<std::size_t>(wrote));
    }
    return {};
  }
  Result<void> close() {
    int fd = fd_;
    fd_ = -1;
    if (::close(fd) != 0) {
      return make_error(ErrorCode::kIo,
                        str_cat("cannot write ", in_backticks(path_), ": ", std::strerror(errno)));
    }
    return {};
  }

 private:
  int fd_ = -1;
  std::string path_;
};

Result<void> write_staged(const std::string& path, std::string_view content, bool executable,
                          std::set<std::string>& made) {
  WV_ASSIGN_OR_RETURN(StagedFile file, StagedFile::create(path, executable, made));
  WV_TRY(file.write(content));
  return file.close();
}

/// A shebang line that runs `python`; the /bin/sh trampoline pip uses when the path is too
/// long for the kernel or contains a space.
std::string shebang(const std::string& python) {
  if (python.size() <= 127 && python.find(' ') == std::string::npos) {
    return str_cat("#!", python, "\n");
  }
  return str_cat("#!/bin/sh\n'''exec' '", python, "' \"$0\" \"$@\"\n' '''\n");
}

bool is_dotted_identifier(std::string_view text) {
  if (text.empty()) return false;
  for (std::string_view part : split(text, '.')) {
    if (part.empty() || is_ascii_digit(part.front())) return false;
    for (char c : part) {
      if (!is_ascii_alnum(c) && c != '_') return false;
    }
  }
  return true;
}

struct EntryPoint {
  std::string name;
  std::string module;
  std::string attr;
};

/// console_scripts and gui_scripts from entry_points.txt (an INI file).
Result<std::vector<EntryPoint>> parse_entry_points(std::string_view text, std::string_view what) {
  std::vector<EntryPoint> result;
  std::string section;
  int line_number = 0;
  for (std::string_view raw : split(text, '\n')) {
    ++line_number;
    std::string_view line = trim(raw);
    if (line.empty() || line.front() == '#' || line.front() == ';') continue;
    if (line.front() == '[') {
      if (line.back() != ']') {
        return make_error(ErrorCode::kParse, str_cat(what, ":", line_number,
                                                     ": expected `]` closing the section name"));
      }
      section = std::string(trim(line.substr(1, line.size() - 2)));
      continue;
    }
    if (section != "console_scripts" && section != "gui_scripts") continue;
    std::size_t equals = line.find('=');
    if (equals == std::string_view::npos) {
      return make_error(ErrorCode::kParse,
                        str_cat(what, ":", line_number, ": expected `name = module:attr`"));
    }
    std::string name(trim(line.substr(0, equals)));
    std::string_view value = trim(line.substr(equals + 1));
    if (std::size_t bracket = value.find('['); bracket != std::string_view::npos) {
      value = trim(value.substr(0, bracket));  // extras do not change the launcher
    }
    std::size_t colon = value.find(':');
    EntryPoint entry;
    entry.name = name;
    if (colon != std::string_view::npos) {
      entry.module = std::string(trim(value.substr(0, colon)));
      entry.attr = std::string(trim(value.substr(colon + 1)));
    }
    if (name.empty() || name == "." || name == ".." ||
        name.find_first_of("/\\") != std::string::npos || !check_member_name(name).empty() ||
        !is_dotted_identifier(entry.module) || !is_dotted_identifier(entry.attr)) {
      return make_error(ErrorCode::kInvalidInput,
                        str_cat(what, ":", line_number, ": invalid script entry point ",
                                in_backticks(line), ": expected `name = module:attr`"));
    }
    result.push_back(std::move(entry));
  }
  return result;
}

std::string launcher(const std::string& python, const EntryPoint& entry) {
  std::string head = entry.attr.substr(0, entry.attr.find('.'));
  return str_cat(shebang(python),
                 "# -*- coding: utf-8 -*-\n"
                 "import re\n"
                 "import sys\n"
                 "from ", entry.module, " import ", head, "\n"
                 "if __name__ == \"__main__\":\n"
                 "    sys.argv[0] = re.sub(r\"(-script\\.pyw|\\.exe)?$\", \"\", sys.argv[0])\n"
                 "    sys.exit(", entry.attr, "())\n");
}

std::string record_field(std::string_view text) {
  if (text.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(text);
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
  return out;
}

std::string strip_padding(std::string_view digest) {
  while (!digest.empty() && digest.back() == '=') digest.remove_suffix(1);
  return std::string(digest);
}

}  // namespace

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

Result<UnpackedWheel> unpack_wheel(const std::string& wheel_path, const UnpackOptions& options) {
  const std::string wheel = options.wheel_name.empty()
                                ? std::filesystem::path(wheel_path).filename().string()
                                : options.wheel_name;
  WV_ASSIGN_OR_RETURN(pkg::WheelFilename filename, pkg::parse_wheel_filename(wheel));
  const std::string name = filename.name.str();

  WV_ASSIGN_OR_RETURN(ZipPtr archive, open_zip(wheel_path, str_cat("wheel ", in_backticks(wheel))));
  zip_int64_t count = zip_get_num_entries(archive.get(), 0);
  if (count < 0 || static_cast<std::uint64_t>(count) > options.limits.max_entries) {
    return limit_error(Limit::kWheelEntries, str_cat("the entry count of wheel ", in_backticks(wheel)),
                       count < 0 ? std::nullopt : std::optional<std::uint64_t>(count),
                       options.limits.max_entries);
  }

  // Pass 1: names, sizes, kinds; find the .dist-info folder.
  std::vector<Member> members;
  members.reserve(static_cast<std::size_t>(count));
  std::uint64_t total = 0;
  std::set<std::string> dist_infos;
  std::set<std::string> names;
  for (zip_int64_t i = 0; i < count; ++i) {
    zip_stat_t stat;
    zip_stat_init(&stat);
    if (zip_stat_index(archive.get(), static_cast<zip_uint64_t>(i), 0, &stat) != 0 ||
        !(stat.valid & ZIP_STAT_NAME) || !(stat.valid & ZIP_STAT_SIZE)) {
      return make_error(ErrorCode::kIntegrity,
                        str_cat("wheel ", in_backticks(wheel), ": cannot read zip entry ", i));
    }
    Member member;
    member.index = static_cast<zip_uint64_t>(i);
    member.name = stat.name;
    member.size = stat.size;
    if (std::string why = check_member_name(member.name); !why.empty()) {
      return make_error(ErrorCode::kInvalidInput,
                        str_cat("wheel ", in_backticks(wheel), " has an entry ",
                                in_backticks(member.name), " with ", why,
                                "; refusing to write outside the environment"));
    }
    zip_uint8_t opsys = 0;
    zip_uint32_t attributes = 0;
    if (zip_file_get_external_attributes(archive.get(), member.index, 0, &opsys, &attributes) ==
            0 &&
        opsys == ZIP_OPSYS_UNIX) {
      mode_t mode = static_cast<mode_t>(attributes >> 16);
      if (S_ISLNK(mode)) {
        return make_error(ErrorCode::kInvalidInput,
                          str_cat("wheel ", in_backticks(wheel), " has a symlink entry ",
                                  in_backticks(member.name),
                                  "; wheels may not contain links (they could point outside "
                                  "the environment)"));
      }
      if ((mode & S_IFMT) != 0 && !S_ISREG(mode) && !S_ISDIR(mode)) {
        return make_error(ErrorCode::kInvalidInput,
                          str_cat("wheel ", in_backticks(wheel), " has a special file entry ",
                                  in_backticks(member.name)));
      }
      member.executable = (mode & 0111) != 0;
    }
    member.directory = member.name.back() == '/';
    if (member.directory) continue;
    total += member.size;
    if (total > options.limits.max_total_size) {
      return limit_error(Limit::kUnpackedBytes,
                         str_cat("the unpacked size of wheel ", in_backticks(wheel)), std::nullopt,
                         options.limits.max_total_size);
    }
    if (!names.insert(member.name).second) {
      return make_error(ErrorCode::kInvalidInput,
                        str_cat("wheel ", in_backticks(wheel), " lists ",
                                in_backticks(member.name), " twice"));
    }
    std::string_view top = std::string_view(member.name).substr(0, member.name.find('/'));
    if (top.size() > 10 && top.substr(top.size() - 10) == ".dist-info" &&
        member.name.find('/') != std::string::npos) {
      dist_infos.insert(std::string(top));
    }
    members.push_back(std::move(member));
  }
  std::string dist_info;
  for (const std::string& candidate : dist_infos) {
    std::string_view stem = std::string_view(candidate).substr(0, candidate.size() - 10);
    std::size_t dash = stem.rfind('-');
    if (dash != std::string_view::npos && pkg::normalize_name(stem.substr(0, dash)) == name) {
      if (!dist_info.empty()) {
        return make_error(ErrorCode::kInvalidInput,
                          str_cat("wheel ", in_backticks(wheel), " has two .dist-info folders"));
      }
      dist_info = candidate;
    }
  }
  if (dist_info.empty()) {
    return make_error(ErrorCode::kInvalidInput,
                      str_cat("wheel ", in_backticks(wheel), " has no ",
                              in_backticks(str_cat(name, "-", filename.version.to_string(),
                                                   ".dist-info/")),
                              " folder"));
  }
  const std::string data_dir = str_cat(dist_info.substr(0, dist_info.size() - 10), ".data/");
  auto find_member = [&](const std::string& member_name) -> const Member* {
    for (const Member& member : members) {
      if (member.name == member_name) return &member;
    }
    return nullptr;
  };
  // The file name, the dist-info folder and METADATA must name one distribution and version
  // (pip refuses the same, "inconsistent name/version"): otherwise the lock, the plan and what
  // the next sync reads back from the environment would each describe a different package.
  {
    const std::string written_version = filename.version.to_string();
    std::string_view stem = std::string_view(dist_info).substr(0, dist_info.size() - 10);
    std::string_view folder_version = stem.substr(stem.rfind('-') + 1);
    if (Result<pkg::Version> parsed = pkg::parse_version(folder_version);
        !parsed || !(*parsed == filename.version)) {
      return make_error(ErrorCode::kIntegrity,
                        str_cat("wheel ", in_backticks(wheel), " has inconsistent version: the "
                                "file name says ", in_backticks(written_version), ", its folder ",
                                in_backticks(dist_info), " says ", in_backticks(folder_version)));
    }
    const Member* metadata_member = find_member(dist_info + "/METADATA");
    if (metadata_member == nullptr) {
      return make_error(ErrorCode::kInvalidInput,
                        str_cat("wheel ", in_backticks(wheel), " has no METADATA file in ",
                                in_backticks(dist_info)));
    }
    WV_ASSIGN_OR_RETURN(std::string metadata_text,
                        read_member_text(archive.get(), *metadata_member, wheel,
                                         Limit::kRecordBytes, options.limits.max_metadata_size));
    // Only the two header fields are read: a full parse would refuse wheels for fields that
    // installing never uses.
    std::optional<std::string> metadata_name;
    std::optional<std::string> metadata_version;
    for (std::string_view line : split(metadata_text, '\n')) {
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      if (line.empty()) break;  // the body starts
      std::size_t colon = line.find(':');
      if (colon == std::string_view::npos) continue;
      std::string_view key = trim(line.substr(0, colon));
      std::string value(trim(line.substr(colon + 1)));
      if (iequals(key, "Name") && !metadata_name) metadata_name = value;
      if (iequals(key, "Version") && !metadata_version) metadata_version = value;
    }
    if (!metadata_name || !metadata_version) {
      return make_error(ErrorCode::kInvalidInput,
                        str_cat("wheel ", in_backticks(wheel), ": ", in_backticks(metadata_member->name),
                                " has no ", metadata_name ? "Version" : "Name", " field"));
    }
    if (pkg::normalize_name(*metadata_name) != name) {
      return make_error(ErrorCode::kIntegrity,
                        str_cat("wheel ", in_backticks(wheel), " has inconsistent name: the file "
                                "name says ", in_backticks(name), ", METADATA says ",
                                in_backticks(*metadata_name)));
    }
    if (Result<pkg::Version> parsed = pkg::parse_version(*metadata_version);
        !parsed || !(*parsed == filename.version)) {
      return make_error(ErrorCode::kIntegrity,
                        str_cat("wheel ", in_backticks(wheel), " has inconsistent version: the "
                                "file name says ", in_backticks(written_version), ", METADATA says ",
                                in_backticks(*metadata_version)));
    }
  }
  const Member* wheel_member = find_member(dist_info + "/WHEEL");
  const Member* record_member = find_member(dist_info + "/RECORD");
  if (wheel_member == nullptr || record_member == nullptr) {
    return make_error(ErrorCode::kInvalidInput,
                      str_cat("wheel ", in_backticks(wheel), " has no ",
                              wheel_member == nullptr ? "WHEEL" : "RECORD", " file in ",
                              in_backticks(dist_info)));
  }
  WV_ASSIGN_OR_RETURN(std::string wheel_text,
                      read_member_text(archive.get(), *wheel_member, wheel,
                                       Limit::kRecordBytes,
                                       options.limits.max_metadata_size));
  bool root_is_purelib = true;
  for (std::string_view line : split(wheel_text, '\n')) {
    std::size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    std::string_view key = trim(line.substr(0, colon));
    std::string_view value = trim(line.substr(colon + 1));
    if (iequals(key, "Root-Is-Purelib")) root_is_purelib = iequals(value, "true");
    if (iequals(key, "Wheel-Version") && !(value.size() >= 2 && value.substr(0, 2) == "1.")) {
      return make_error(ErrorCode::kUnsupported,
                        str_cat("wheel ", in_backticks(wheel), " has Wheel-Version ",
                                in_backticks(value), "; wvlock installs 1.x"));
    }
  }
  WV_ASSIGN_OR_RETURN(std::string record_text,
                      read_member_text(archive.get(), *record_member, wheel,
                                       Limit::kRecordBytes,
                                       options.limits.max_metadata_size));
  const std::string record_what = str_cat(wheel, "!", dist_info, "/RECORD");
  WV_ASSIGN_OR_RETURN(std::vector<RecordRow> rows, parse_record(record_text, record_what));
  std::map<std::string, const RecordRow*> record;
  for (const RecordRow& row : rows) record[row.path] = &row;
  for (const RecordRow& row : rows) {
    if (row.path.empty() || row.path.back() == '/') continue;
    if (row.path == dist_info + "/RECORD") continue;
    if (names.count(row.path) == 0) {
      return make_error(ErrorCode::kIntegrity,
                        str_cat(record_what, " lists ", in_backticks(row.path),
                                ", which the wheel does not contain"));
    }
  }

  const InstallScheme& scheme = options.scheme;
  const std::string site = root_is_purelib ? scheme.purelib : scheme.platlib;
  UnpackedWheel result;
  result.name = name;
  result.version = filename.version.to_string();
  result.dist_info = join_rel(site, dist_info);
  struct Written {
    std::string rel;
    std::string hash;
    std::uint64_t size = 0;
    std::string member;  ///< the archive member behind it, "" for files wvlock writes
  };
  std::vector<Written> written;
  std::set<std::string> made_dirs;
  auto staged_path = [&](const std::string& rel) { return str_cat(options.staging, "/", rel); };

  // Pass 2: verify and stage every file.
  for (const Member& member : members) {
    if (member.name == record_member->name || member.name == dist_info + "/RECORD.jws" ||
        member.name == dist_info + "/RECORD.p7s") {
      continue;
    }
    auto row = record.find(member.name);
    if (row == record.end() || row->second->hash.empty()) {
      return make_error(ErrorCode::kIntegrity,
                        str_cat(in_backticks(member.name), " in ", in_backticks(wheel),
                                row == record.end() ? " is not listed in RECORD"
                                                    : " has no hash in RECORD"));
    }
    const std::string& recorded = row->second->hash;
    if (recorded.compare(0, 7, "sha256=") != 0) {
      return make_error(ErrorCode::kIntegrity,
                        str_cat(record_what, ": ", in_backticks(member.name), " has hash ",
                                in_backticks(recorded), "; wvlock checks sha256 only"));
    }
    // Where the member goes.
    std::string rel;
    bool is_script = false;
    if (member.name.compare(0, data_dir.size(), data_dir) == 0) {
      std::string_view rest = std::string_view(member.name).substr(data_dir.size());
      std::size_t slash = rest.find('/');
      std::string_view key = rest.substr(0, slash);
      std::string_view inner = slash == std::string_view::npos ? "" : rest.substr(slash + 1);
      if (inner.empty()) {
        return make_error(ErrorCode::kInvalidInput,
                          str_cat(in_backticks(member.name), " in ", in_backticks(wheel),
                                  " is not inside a scheme folder of ", in_backticks(data_dir)));
      }
      if (key == "purelib") {
        rel = join_rel(scheme.purelib, inner);
      } else if (key == "platlib") {
        rel = join_rel(scheme.platlib, inner);
      } else if (key == "scripts") {
        rel = join_rel(scheme.scripts, inner);
        is_script = true;
      } else if (key == "headers") {
        rel = join_rel(join_rel(scheme.headers, name), inner);
      } else if (key == "data") {
        rel = join_rel(scheme.data, inner);
      } else {
        return make_error(ErrorCode::kInvalidInput,
                          str_cat(in_backticks(member.name), " in ", in_backticks(wheel),
                                  " uses the unknown scheme ", in_backticks(key),
                                  " (expected purelib, platlib, scripts, headers or data)"));
      }
    } else {
      rel = join_rel(site, member.name);
    }
    Sha256 digest;
    std::uint64_t size = 0;
    std::string written_hash;
    if (is_script) {
      WV_ASSIGN_OR_RETURN(std::string content,
                          read_member_text(archive.get(), member, wheel, Limit::kUnpackedBytes,
                                           options.limits.max_total_size));
      digest.update(content);
      size = content.size();
      std::string_view view = content;
      if (view.substr(0, 8) == "#!python") {  // `#!python` / `#!pythonw`
        std::size_t end = view.find('\n');
        content = shebang(scheme.python) +
                  (end == std::string_view::npos ? std::string() : content.substr(end + 1));
      }
      written_hash = sha256_record_digest(content);
      WV_TRY(write_staged(staged_path(rel), content, true, made_dirs));
      written.push_back(Written{rel, written_hash, content.size(), member.name});
    } else {
      WV_ASSIGN_OR_RETURN(StagedFile file, StagedFile::create(staged_path(rel), member.executable, made_dirs));
      WV_TRY(read_member(archive.get(), member, wheel, [&](std::string_view chunk) {
        digest.update(chunk);
        size += chunk.size();
        return file.write(chunk);
      }));
      WV_TRY(file.close());
    }
    std::string actual = str_cat("sha256=", hex_to_urlsafe_base64_nopad(digest.finish_hex()));
    if (strip_padding(recorded) != actual) {
      return make_error(ErrorCode::kIntegrity,
                        str_cat("hash mismatch for ", in_backticks(member.name), " in ",
                                in_backticks(wheel), ": RECORD says ", recorded,
                                ", the content is ", actual));
    }
    if (!row->second->size.empty() && row->second->size != std::to_string(size)) {
      return make_error(ErrorCode::kIntegrity,
                        str_cat("size mismatch for ", in_backticks(member.name), " in ",
                                in_backticks(wheel), ": RECORD says ", row->second->size,
                                ", the content is ", size, " bytes"));
    }
    if (!is_script) written.push_back(Written{rel, actual, size, member.name});
  }

  // Launchers from entry_points.txt.
  if (const Member* entry_points = find_member(dist_info + "/entry_points.txt")) {
    WV_ASSIGN_OR_RETURN(std::string text,
                        read_member_text(archive.get(), *entry_points, wheel,
                                         Limit::kRecordBytes,
                                       options.limits.max_metadata_size));
    WV_ASSIGN_OR_RETURN(std::vector<EntryPoint> entries,
                        parse_entry_points(text, str_cat(wheel, "!", entry_points->name)));
    for (const EntryPoint& entry : entries) {
      std::string rel = join_rel(scheme.scripts, entry.name);
      std::string content = launcher(scheme.python, entry);
      WV_TRY(write_staged(staged_path(rel), content, true, made_dirs));
      written.push_back(Written{rel, sha256_record_digest(content), content.size(),
                                entry_points->name});
    }
  }

  // INSTALLER, REQUESTED, direct_url.json, WVLOCK, then RECORD listing everything.
  auto add_metadata = [&](std::string_view leaf, const std::string& content) -> Result<void> {
    std::string rel = join_rel(result.dist_info, leaf);
    WV_TRY(write_staged(staged_path(rel), content, false, made_dirs));
    written.push_back(Written{rel, sha256_record_digest(content), content.size()});
    return {};
  };
  WV_TRY(add_metadata("INSTALLER", "wvlock\n"));
  if (options.requested) WV_TRY(add_metadata("REQUESTED", ""));
  if (!options.direct_url_json.empty()) WV_TRY(add_metadata("direct_url.json", options.direct_url_json));
  if (!options.recorded_source.empty()) {
    WV_TRY(add_metadata("WVLOCK", str_cat("wheel = ", options.recorded_source, "\nsha256 = ",
                                          options.recorded_digest, "\n")));
  } else if (!options.wheel_name.empty()) {
    WV_TRY(add_metadata("WVLOCK", str_cat("wheel = ", options.wheel_name, "\nsha256 = ",
                                          options.wheel_sha256, "\n")));
  }
  std::string installed_record;
  std::set<std::string> listed;
  const std::filesystem::path site_path(site.empty() ? "." : site);
  auto relative_to_site = [&](const std::string& rel) {
    return std::filesystem::path(rel).lexically_relative(site_path).generic_string();
  };
  for (auto it = written.rbegin(); it != written.rend(); ++it) {
    if (!listed.insert(it->rel).second) it->rel.clear();  // a launcher replaced a file
  }
  for (const Written& file : written) {
    if (file.rel.empty()) continue;
    installed_record += str_cat(record_field(relative_to_site(file.rel)), ",", file.hash, ",",
                                file.size, "\n");
    result.files.push_back(file.rel);
    result.members.push_back(file.member);
  }
  const std::string record_rel = join_rel(result.dist_info, "RECORD");
  installed_record += str_cat(record_field(relative_to_site(record_rel)), ",,\n");
  WV_TRY(write_staged(staged_path(record_rel), installed_record, false, made_dirs));
  result.files.push_back(record_rel);
  result.members.emplace_back();
  return result;
}

}  // namespace wv::install
