// Linking an extracted wheel into staging: the spread step of "Installing a wheel".
#include "src/install/wheel_link.h"

#include <algorithm>
#include <filesystem>
#include <iterator>
#include <set>
#include <unordered_set>

#include "src/base/sha256.h"
#include "src/base/str.h"
#include "src/install/slices.h"

namespace wv::install {
namespace {

// Fewer members than this per core are linked in one pass: a thread costs more than it saves.
constexpr std::size_t kMembersPerSlice = 2048;

std::string join_rel(std::string_view base, std::string_view leaf) {
  if (base.empty()) return std::string(leaf);
  if (leaf.empty()) return std::string(base);
  return str_cat(base, "/", leaf);
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

/// Creates the folders above `rel` in staging once each.
Result<void> make_parents(FileSystem& file_system, const std::string& staging,
                          const std::string& rel, std::set<std::string>& made) {
  std::vector<std::string_view> parts = split(rel, '/');
  std::string prefix;
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
    prefix = prefix.empty() ? std::string(parts[i]) : str_cat(prefix, "/", parts[i]);
    if (made.insert(prefix).second) WV_TRY(file_system.create_directory(path_join(staging, prefix)));
  }
  return {};
}

/// Writes one file wvlock makes (launcher, metadata, rewritten script) and records it.
Result<void> write_generated(FileSystem& file_system, LinkedWheel& linked,
                             const UnpackOptions& options, std::set<std::string>& made,
                             const std::string& rel, const std::string& content, bool executable,
                             const std::string& member) {
  WV_TRY(make_parents(file_system, options.staging, rel, made));
  WV_ASSIGN_OR_RETURN(std::unique_ptr<WritableFile> file,
                      file_system.create_file(path_join(options.staging, rel), executable));
  WV_TRY(file->write(content));
  WV_TRY(file->close());
  linked.rows.push_back(RecordRow{rel, sha256_record_digest(content), std::to_string(content.size())});
  linked.unpacked.files.push_back(rel);
  linked.unpacked.members.push_back(member);
  ++linked.counts.written;
  return {};
}

/// A `.data/scripts/` file: `#!python` / `#!pythonw` become this environment's interpreter.
Result<void> place_script(FileSystem& file_system, LinkedWheel& linked, const UnpackOptions& options,
                          std::set<std::string>& made, const std::string& source,
                          const ExtractedMember& member, const std::string& rel) {
  WV_ASSIGN_OR_RETURN(std::string content,
                      file_system.read_file(source, Limit::kUnpackedBytes,
                                            options.limits.max_total_size));
  std::string_view view = content;
  if (view.substr(0, 8) == "#!python") {
    std::size_t end = view.find('\n');
    content = shebang(options.scheme.python) +
              (end == std::string_view::npos ? std::string() : content.substr(end + 1));
  }
  return write_generated(file_system, linked, options, made, rel, content, true, member.path);
}

/// Launchers from entry_points.txt.
Result<void> place_launchers(FileSystem& file_system, LinkedWheel& linked, const ExtractedWheel& wheel,
                             const std::string& tree, const UnpackOptions& options,
                             std::set<std::string>& made, std::string_view wheel_name) {
  const std::string member = wheel.dist_info + "/entry_points.txt";
  bool present = false;
  for (const ExtractedMember& candidate : wheel.members) present = present || candidate.path == member;
  if (!present) return {};
  WV_ASSIGN_OR_RETURN(std::string text,
                      file_system.read_file(path_join(tree, member), Limit::kRecordBytes,
                                            options.limits.max_metadata_size));
  WV_ASSIGN_OR_RETURN(std::vector<EntryPoint> entries,
                      parse_entry_points(text, str_cat(wheel_name, "!", member)));
  for (const EntryPoint& entry : entries) {
    WV_TRY(write_generated(file_system, linked, options, made,
                           join_rel(options.scheme.scripts, entry.name),
                           launcher(options.scheme.python, entry), true, member));
  }
  return {};
}

/// INSTALLER, REQUESTED, direct_url.json and WVLOCK.
Result<void> place_metadata(FileSystem& file_system, LinkedWheel& linked,
                            const UnpackOptions& options, std::set<std::string>& made) {
  auto add = [&](std::string_view leaf, const std::string& content) {
    return write_generated(file_system, linked, options, made,
                           join_rel(linked.unpacked.dist_info, leaf), content, false, "");
  };
  WV_TRY(add("INSTALLER", "wvlock\n"));
  if (options.requested) WV_TRY(add("REQUESTED", ""));
  if (!options.direct_url_json.empty()) WV_TRY(add("direct_url.json", options.direct_url_json));
  if (!options.recorded_source.empty()) {
    WV_TRY(add("WVLOCK", str_cat("wheel = ", options.recorded_source, "\nsha256 = ",
                                 options.recorded_digest, "\n")));
  } else if (!options.wheel_name.empty()) {
    WV_TRY(add("WVLOCK", str_cat("wheel = ", options.wheel_name, "\nsha256 = ",
                                 options.wheel_sha256, "\n")));
  }
  return {};
}

/// What linking a wheel's members reads: each member's destination, in member order.
struct MemberLinks {
  FileSystem& file_system;
  const ExtractedWheel& wheel;
  const std::vector<MemberDestination>& destinations;
  const std::string& tree;
  const UnpackOptions& options;
};

/// Members [begin, end) into staging, in order: scripts rewritten, every other file linked.
Result<void> link_members(const MemberLinks& links, std::size_t begin, std::size_t end,
                          LinkedWheel& linked, std::set<std::string>& made) {
  FileSystem& file_system = links.file_system;
  const std::string& staging = links.options.staging;
  for (std::size_t i = begin; i < end; ++i) {
    const ExtractedMember& member = links.wheel.members[i];
    const MemberDestination& destination = links.destinations[i];
    const std::string source = path_join(links.tree, member.path);
    if (destination.script) {
      WV_TRY(place_script(file_system, linked, links.options, made, source, member,
                          destination.rel));
      continue;
    }
    WV_TRY(make_parents(file_system, staging, destination.rel, made));
    WV_ASSIGN_OR_RETURN(LinkMode used,
                        file_system.link_file(source, path_join(staging, destination.rel),
                                              linked.next_mode));
    if (used == LinkMode::kClone) ++linked.counts.cloned;
    if (used == LinkMode::kHardlink) ++linked.counts.hardlinked;
    if (used == LinkMode::kCopy) ++linked.counts.copied;
    // Where clone did not work, later files start at the next rung (a per-file fallback still
    // copies a file a hard link cannot reach).
    if (used != LinkMode::kClone && linked.next_mode == LinkMode::kAuto) linked.next_mode = used;
    linked.rows.push_back(RecordRow{destination.rel, member.hash, std::to_string(member.size)});
    linked.unpacked.files.push_back(destination.rel);
    linked.unpacked.members.push_back(member.path);
  }
  return {};
}

/// True when no destination is another's, nor a folder on another's way: then the members
/// may be linked in any order, and the order of their results alone is kept.
bool independent(const std::vector<MemberDestination>& destinations) {
  std::unordered_set<std::string_view> all;
  for (const MemberDestination& destination : destinations) {
    if (!all.insert(destination.rel).second) return false;
  }
  for (const MemberDestination& destination : destinations) {
    const std::string_view rel = destination.rel;
    for (std::size_t slash = rel.find('/'); slash != std::string_view::npos;
         slash = rel.find('/', slash + 1)) {
      if (all.count(rel.substr(0, slash))) return false;
    }
  }
  return true;
}

/// Every member linked: a big wheel's (a torch-sized one has 12,000 files, each a link and a
/// folder here and there) in one contiguous slice per core, joined in member order, so the
/// rows, the counts and the first error are what one pass in order gives.
Result<void> link_all(const MemberLinks& links, LinkedWheel& linked, std::set<std::string>& made) {
  const std::size_t count = links.destinations.size();
  if (slice_count(count, kMembersPerSlice) < 2 || !independent(links.destinations)) {
    return link_members(links, 0, count, linked, made);
  }
  // One slice's links; a folder two slices need is made by the first to get there (mkdir takes
  // one that is).
  struct LinkedSlice {
    LinkedWheel wheel;
    std::set<std::string> made;
    Result<void> done;
  };
  std::vector<LinkedSlice> parts =
      in_slices<LinkedSlice>(count, kMembersPerSlice, [&](std::size_t begin, std::size_t end) {
        LinkedSlice part;
        part.wheel.next_mode = linked.next_mode;
        part.done = link_members(links, begin, end, part.wheel, part.made);
        return part;
      });
  for (LinkedSlice& part : parts) {
    WV_TRY(part.done);
    std::move(part.wheel.rows.begin(), part.wheel.rows.end(), std::back_inserter(linked.rows));
    std::move(part.wheel.unpacked.files.begin(), part.wheel.unpacked.files.end(),
              std::back_inserter(linked.unpacked.files));
    std::move(part.wheel.unpacked.members.begin(), part.wheel.unpacked.members.end(),
              std::back_inserter(linked.unpacked.members));
    linked.counts.add(part.wheel.counts);
    linked.next_mode = part.wheel.next_mode;
    made.insert(part.made.begin(), part.made.end());
  }
  return {};
}

}  // namespace

void LinkCounts::add(const LinkCounts& other) {
  cloned += other.cloned;
  hardlinked += other.hardlinked;
  copied += other.copied;
  written += other.written;
}

Result<MemberDestination> member_destination(const ExtractedWheel& wheel,
                                             const InstallScheme& scheme,
                                             const std::string& member, std::string_view wheel_name) {
  const std::string data_dir =
      str_cat(wheel.dist_info.substr(0, wheel.dist_info.size() - 10), ".data/");
  const std::string& site = wheel.root_is_purelib ? scheme.purelib : scheme.platlib;
  if (member.compare(0, data_dir.size(), data_dir) != 0) {
    return MemberDestination{join_rel(site, member), false};
  }
  std::string_view rest = std::string_view(member).substr(data_dir.size());
  std::size_t slash = rest.find('/');
  std::string_view key = rest.substr(0, slash);
  std::string_view inner = slash == std::string_view::npos ? "" : rest.substr(slash + 1);
  if (inner.empty()) {
    return make_error(ErrorCode::kInvalidInput,
                      str_cat(in_backticks(member), " in ", in_backticks(wheel_name),
                              " is not inside a scheme folder of ", in_backticks(data_dir)));
  }
  if (key == "purelib") return MemberDestination{join_rel(scheme.purelib, inner), false};
  if (key == "platlib") return MemberDestination{join_rel(scheme.platlib, inner), false};
  if (key == "scripts") return MemberDestination{join_rel(scheme.scripts, inner), true};
  if (key == "headers") {
    return MemberDestination{join_rel(join_rel(scheme.headers, wheel.name), inner), false};
  }
  if (key == "data") return MemberDestination{join_rel(scheme.data, inner), false};
  return make_error(ErrorCode::kInvalidInput,
                    str_cat(in_backticks(member), " in ", in_backticks(wheel_name),
                            " uses the unknown scheme ", in_backticks(key),
                            " (expected purelib, platlib, scripts, headers or data)"));
}

Result<void> check_layout(const ExtractedWheel& wheel, std::string_view wheel_name) {
  const InstallScheme scheme{"/", "purelib", "platlib", "scripts", "headers", "", "/python"};
  for (const ExtractedMember& member : wheel.members) {
    WV_TRY(member_destination(wheel, scheme, member.path, wheel_name));
  }
  return {};
}

Result<LinkedWheel> link_wheel(FileSystem& file_system, const ExtractedWheel& wheel,
                               const std::string& tree, const UnpackOptions& options,
                               LinkMode mode) {
  const std::string wheel_name =
      options.wheel_name.empty() ? str_cat(wheel.name, "-", wheel.version) : options.wheel_name;
  LinkedWheel linked;
  linked.next_mode = mode;
  linked.site = wheel.root_is_purelib ? options.scheme.purelib : options.scheme.platlib;
  linked.unpacked.name = wheel.name;
  linked.unpacked.version = wheel.version;
  linked.unpacked.dist_info = join_rel(linked.site, wheel.dist_info);
  std::vector<MemberDestination> destinations;
  destinations.reserve(wheel.members.size());
  for (const ExtractedMember& member : wheel.members) {
    WV_ASSIGN_OR_RETURN(MemberDestination destination,
                        member_destination(wheel, options.scheme, member.path, wheel_name));
    destinations.push_back(std::move(destination));
  }
  WV_TRY(file_system.create_directories(options.staging));
  const MemberLinks links{file_system, wheel, destinations, tree, options};
  std::set<std::string> made;
  WV_TRY(link_all(links, linked, made));
  WV_TRY(place_launchers(file_system, linked, wheel, tree, options, made, wheel_name));
  WV_TRY(place_metadata(file_system, linked, options, made));
  return linked;
}

void add_record_row(LinkedWheel& wheel, std::string rel, std::string hash, std::uint64_t size) {
  wheel.unpacked.files.push_back(rel);
  wheel.unpacked.members.emplace_back();
  wheel.rows.push_back(RecordRow{std::move(rel), std::move(hash), std::to_string(size)});
}

Result<void> write_record(FileSystem& file_system, LinkedWheel& wheel, const std::string& staging) {
  // A launcher may replace a file of the same name: the last one written is the one listed.
  std::set<std::string> listed;
  std::vector<bool> keep(wheel.rows.size(), false);
  for (std::size_t i = wheel.rows.size(); i-- > 0;) keep[i] = listed.insert(wheel.rows[i].path).second;
  const std::string site = wheel.site.empty() ? "." : wheel.site;
  auto relative_to_site = [&](const std::string& rel) {
    // A clean path inside the site folder (nearly every row) is its rest: lexically_relative
    // would parse both paths for each of a big wheel's 12,000 rows to say the same.
    if (rel.size() > site.size() + 1 && rel.compare(0, site.size(), site) == 0 &&
        rel[site.size()] == '/' && rel.back() != '/' &&
        check_member_name(std::string_view(rel).substr(site.size() + 1)).empty()) {
      return rel.substr(site.size() + 1);
    }
    return std::filesystem::path(rel).lexically_relative(site).generic_string();
  };
  std::string text;
  std::vector<std::string> files;
  std::vector<std::string> members;
  for (std::size_t i = 0; i < wheel.rows.size(); ++i) {
    if (!keep[i]) continue;
    const RecordRow& row = wheel.rows[i];
    text += str_cat(record_field(relative_to_site(row.path)), ",", row.hash, ",", row.size, "\n");
    files.push_back(row.path);
    members.push_back(i < wheel.unpacked.members.size() ? wheel.unpacked.members[i] : std::string());
  }
  const std::string record_rel = join_rel(wheel.unpacked.dist_info, "RECORD");
  text += str_cat(record_field(relative_to_site(record_rel)), ",,\n");
  WV_ASSIGN_OR_RETURN(std::unique_ptr<WritableFile> file,
                      file_system.create_file(path_join(staging, record_rel), false));
  WV_TRY(file->write(text));
  WV_TRY(file->close());
  files.push_back(record_rel);
  members.emplace_back();
  wheel.unpacked.files = std::move(files);
  wheel.unpacked.members = std::move(members);
  return {};
}

}  // namespace wv::install
