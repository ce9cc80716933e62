#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "src/pkg/host_tag_ranks.h"
#include "src/pkg/tags.h"

using wv::pkg::compatible_tags;
using wv::pkg::HostTagRanks;
using wv::pkg::OperatingSystem;
using wv::pkg::parse_tag;
using wv::pkg::parse_tag_set;
using wv::pkg::platform_tags;
using wv::pkg::Tag;
using wv::pkg::TagPlatform;
using wv::pkg::TagPriority;

namespace {

TagPlatform linux_host(int glibc_minor, std::string arch = "x86_64", int python_minor = 12) {
  TagPlatform p;
  p.os = OperatingSystem::kManylinux;
  p.arch = std::move(arch);
  p.libc_major = 2;
  p.libc_minor = glibc_minor;
  p.python_minor = python_minor;
  return p;
}

std::vector<std::string> strings(const std::vector<Tag>& tags) {
  std::vector<std::string> out;
  for (const Tag& t : tags) out.push_back(t.to_string());
  return out;
}

std::ptrdiff_t index_of(const std::vector<std::string>& list, const std::string& item) {
  auto it = std::find(list.begin(), list.end(), item);
  return it == list.end() ? -1 : it - list.begin();
}

}  // namespace

TEST_CASE("tags: a single tag parses and lower-cases", "[pkg][tags]") {
  auto tag = parse_tag("CP312-cp312-Manylinux_2_28_X86_64");
  REQUIRE(tag);
  CHECK(tag->interpreter == "cp312");
  CHECK(tag->abi == "cp312");
  CHECK(tag->platform == "manylinux_2_28_x86_64");
  CHECK(tag->to_string() == "cp312-cp312-manylinux_2_28_x86_64");
  CHECK(parse_tag(tag->to_string()).value() == *tag);
}

TEST_CASE("tags: malformed tags are errors naming the input", "[pkg][tags]") {
  for (const char* bad : {"", "py3", "py3-none", "py3-none-any-x", "py3--any", "-none-any",
                          "py3-none-", "py2.py3-none-any", "py3-no ne-any", "py3-none-an\xff"}) {
    auto tag = parse_tag(bad);
    CHECK_FALSE(tag);
    if (!tag) CHECK(tag.error().message.find("tag") != std::string::npos);
  }
}

TEST_CASE("tags: a compressed tag set expands to the cross product", "[pkg][tags]") {
  auto tags = parse_tag_set("py2.py3-none-any");
  REQUIRE(tags);
  CHECK(strings(*tags) == std::vector<std::string>{"py2-none-any", "py3-none-any"});

  auto many = parse_tag_set("cp311.cp312-abi3.none-manylinux_2_17_x86_64.manylinux2014_x86_64");
  REQUIRE(many);
  CHECK(many->size() == 8);
  CHECK(many->front().to_string() == "cp311-abi3-manylinux_2_17_x86_64");
  CHECK(many->back().to_string() == "cp312-none-manylinux2014_x86_64");

  auto duplicated = parse_tag_set("py3.py3-none-any");
  REQUIRE(duplicated);
  CHECK(duplicated->size() == 1);
  CHECK_FALSE(parse_tag_set("py2..py3-none-any"));
  CHECK_FALSE(parse_tag_set("py2.py3-none-any."));
}

TEST_CASE("tags: manylinux lists PEP 600 names with legacy aliases right after", "[pkg][tags]") {
  const auto platforms = platform_tags(linux_host(28));
  REQUIRE(platforms.front() == "manylinux_2_28_x86_64");
  CHECK(platforms.back() == "linux_x86_64");
  CHECK(index_of(platforms, "manylinux2014_x86_64") ==
        index_of(platforms, "manylinux_2_17_x86_64") + 1);
  CHECK(index_of(platforms, "manylinux2010_x86_64") ==
        index_of(platforms, "manylinux_2_12_x86_64") + 1);
  CHECK(index_of(platforms, "manylinux1_x86_64") == index_of(platforms, "manylinux_2_5_x86_64") + 1);
  CHECK(index_of(platforms, "manylinux_2_4_x86_64") == -1);
  CHECK(index_of(platforms, "manylinux_2_29_x86_64") == -1);

  // aarch64 never had a glibc older than 2.17.
  const auto arm = platform_tags(linux_host(28, "aarch64"));
  CHECK(index_of(arm, "manylinux_2_17_aarch64") >= 0);
  CHECK(index_of(arm, "manylinux_2_16_aarch64") == -1);
  CHECK(index_of(arm, "manylinux2010_aarch64") == -1);
}

TEST_CASE("tags: musllinux counts minors down to 0, then linux_ARCH", "[pkg][tags]") {
  TagPlatform p;
  p.os = OperatingSystem::kMusllinux;
  p.arch = "x86_64";
  p.libc_major = 1;
  p.libc_minor = 2;
  CHECK(platform_tags(p) == std::vector<std::string>{"musllinux_1_2_x86_64", "musllinux_1_1_x86_64",
                                                     "musllinux_1_0_x86_64", "linux_x86_64"});
}

TEST_CASE("tags: macOS arm64 accepts older majors and universal2 down to 10.4", "[pkg][tags]") {
  TagPlatform p;
  p.os = OperatingSystem::kMacos;
  p.arch = "arm64";
  p.libc_major = 14;
  p.libc_minor = 0;
  const auto platforms = platform_tags(p);
  CHECK(platforms.front() == "macosx_14_0_arm64");
  CHECK(platforms[1] == "macosx_14_0_universal2");
  CHECK(index_of(platforms, "macosx_11_0_arm64") >= 0);
  CHECK(index_of(platforms, "macosx_10_9_universal2") >= 0);
  CHECK(index_of(platforms, "macosx_10_9_x86_64") == -1);
  CHECK(index_of(platforms, "macosx_15_0_arm64") == -1);
  CHECK(platforms.back() == "macosx_10_4_universal2");
}

TEST_CASE("tags: Windows spellings of the architecture", "[pkg][tags]") {
  TagPlatform p;
  p.os = OperatingSystem::kWindows;
  p.arch = "amd64";
  CHECK(platform_tags(p) == std::vector<std::string>{"win_amd64"});
  p.arch = "arm64";
  CHECK(platform_tags(p) == std::vector<std::string>{"win_arm64"});
  p.arch = "x86";
  CHECK(platform_tags(p) == std::vector<std::string>{"win32"});
}

TEST_CASE("tags: CPython order is own ABI, abi3, none, older abi3, pyXY, any", "[pkg][tags]") {
  const auto tags = strings(compatible_tags(linux_host(17, "aarch64", 11)));
  REQUIRE(tags.size() == 89);
  CHECK(tags[0] == "cp311-cp311-manylinux_2_17_aarch64");
  CHECK(tags[3] == "cp311-abi3-manylinux_2_17_aarch64");
  CHECK(tags[6] == "cp311-none-manylinux_2_17_aarch64");
  CHECK(tags[9] == "cp310-abi3-manylinux_2_17_aarch64");
  CHECK(index_of(tags, "cp32-abi3-linux_aarch64") >= 0);
  CHECK(index_of(tags, "cp31-abi3-linux_aarch64") == -1);
  CHECK(index_of(tags, "cp311-none-any") < index_of(tags, "py311-none-any"));
  CHECK(index_of(tags, "py3-none-any") == index_of(tags, "py311-none-any") + 1);
  CHECK(tags.back() == "py30-none-any");
}

TEST_CASE("tags: old and free-threaded CPython ABIs", "[pkg][tags]") {
  auto py37 = strings(compatible_tags(linux_host(17, "x86_64", 7)));
  CHECK(py37.front() == "cp37-cp37m-manylinux_2_17_x86_64");

  TagPlatform ft = linux_host(28, "x86_64", 13);
  ft.free_threaded = true;
  auto tags = strings(compatible_tags(ft));
  CHECK(tags.front() == "cp313-cp313t-manylinux_2_28_x86_64");
  CHECK(index_of(tags, "cp313-abi3-manylinux_2_28_x86_64") == -1);
  CHECK(index_of(tags, "cp313-cp313-manylinux_2_28_x86_64") == -1);
  CHECK(index_of(tags, "cp313-none-manylinux_2_28_x86_64") >= 0);
}

TEST_CASE("tags: TagPriority ranks tags and wheels", "[pkg][tags]") {
  const TagPriority priority(compatible_tags(linux_host(28)));
  CHECK(priority.size() == 771);
  CHECK(priority.rank(parse_tag("cp312-cp312-manylinux_2_28_x86_64").value()) == 0u);
  CHECK(priority.rank(parse_tag("py3-none-any").value()).has_value());
  CHECK_FALSE(priority.rank(parse_tag("cp312-cp312-manylinux_2_29_x86_64").value()));
  CHECK_FALSE(priority.rank(parse_tag("cp312-cp312-win_amd64").value()));

  // A wheel's rank is the best rank among its tags.
  auto wheel = parse_tag_set("cp312-cp312-manylinux_2_17_x86_64.manylinux2014_x86_64").value();
  auto best = priority.best_rank(wheel);
  REQUIRE(best);
  CHECK(*best == priority.rank(wheel[0]).value());
  CHECK(*best < priority.rank(wheel[1]).value());
  CHECK(priority.is_compatible(wheel));

  auto universal = parse_tag_set("py2.py3-none-any").value();
  CHECK(priority.best_rank(universal) == priority.rank(universal[1]));
  CHECK(*priority.best_rank(universal) > *best);

  auto windows = parse_tag_set("cp312-cp312-win_amd64").value();
  CHECK_FALSE(priority.best_rank(windows));
  CHECK_FALSE(TagPriority().is_compatible(universal));

  // A repeated tag keeps its first rank.
  Tag any = parse_tag("py3-none-any").value();
  TagPriority dup({any, parse_tag("py2-none-any").value(), any});
  CHECK(dup.rank(any) == 0u);
}

TEST_CASE("tags: HostTagRanks ranks every tag as the expanded list does", "[pkg][tags]") {
  std::vector<TagPlatform> hosts = {linux_host(28), linux_host(17, "aarch64", 8),
                                    linux_host(5, "i686", 7)};
  TagPlatform musl;
  musl.os = OperatingSystem::kMusllinux;
  musl.arch = "x86_64";
  musl.libc_major = 1;
  musl.libc_minor = 2;
  musl.python_minor = 13;
  musl.free_threaded = true;
  TagPlatform mac;
  mac.os = OperatingSystem::kMacos;
  mac.arch = "arm64";
  mac.libc_major = 14;
  mac.python_minor = 11;
  TagPlatform windows;
  windows.os = OperatingSystem::kWindows;
  windows.arch = "amd64";
  windows.python_minor = 1;
  TagPlatform python4 = linux_host(28);
  python4.python_major = 4;
  python4.python_minor = 0;
  hosts.insert(hosts.end(), {musl, mac, windows, python4});
  for (const TagPlatform& host : hosts) {
    const HostTagRanks ranks(host);
    const std::vector<Tag> expanded = ranks.expand();
    const TagPriority priority(compatible_tags(host));
    INFO(host.arch << " python " << host.python_major << "." << host.python_minor);
    REQUIRE(expanded == priority.tags());
    for (const Tag& tag : expanded) {
      INFO(tag.to_string());
      REQUIRE(ranks.rank(tag) == priority.rank(tag));
    }
    // Tags the host does not accept: another platform, an ABI with `any`, an unknown pair.
    for (const char* text : {"cp312-cp312-win_arm64", "cp312-abi3-any", "cp99-cp99-any",
                             "py2-none-any", "pp310-pypy310_pp73-manylinux_2_28_x86_64",
                             "py3-none-linux_s390x"}) {
      Tag tag = parse_tag(text).value();
      INFO(text);
      CHECK(ranks.rank(tag) == priority.rank(tag));
    }
    auto wheel = parse_tag_set("cp311.cp312-abi3.none-manylinux2014_x86_64.win_amd64.any").value();
    CHECK(ranks.best_rank(wheel) == priority.best_rank(wheel));
  }
  // The arithmetic is checked against a first-rank list, so a wrong order would show.
  const HostTagRanks ranks(linux_host(28));
  CHECK(ranks.rank(parse_tag("cp312-cp312-manylinux_2_28_x86_64").value()) == 0u);
  CHECK(ranks.rank(parse_tag("cp312-cp312-manylinux_2_27_x86_64").value()) == 1u);
  CHECK(ranks.rank(parse_tag("cp312-none-any").value()) == 771u - 15u);
}

TEST_CASE("tags: arbitrary bytes never crash the tag parsers", "[pkg][tags]") {
  std::string bytes;
  unsigned state = 12345;
  for (int round = 0; round < 2000; ++round) {
    bytes.clear();
    const int length = static_cast<int>(state % 40);
    for (int i = 0; i < length; ++i) {
      state = state * 1103515245u + 12345u;
      const char alphabet[] = "-.-._ab3\xff\0 pynone";
      bytes.push_back(alphabet[(state >> 16) % (sizeof(alphabet) - 1)]);
    }
    state = state * 1103515245u + 12345u;
    auto one = parse_tag(bytes);
    auto set = parse_tag_set(bytes);
    if (one) CHECK(set);
  }
}

TEST_CASE("tags: unknown or absurd host numbers stay bounded", "[pkg][tags]") {
  // No glibc version known: no manylinux tags, as in packaging.
  CHECK(platform_tags(linux_host(5)) ==
        std::vector<std::string>{"manylinux_2_5_x86_64", "manylinux1_x86_64", "linux_x86_64"});
  CHECK(platform_tags(linux_host(4)) == std::vector<std::string>{"linux_x86_64"});
  TagPlatform unknown = linux_host(0);
  unknown.libc_major = 0;
  CHECK(platform_tags(unknown) == std::vector<std::string>{"linux_x86_64"});
  TagPlatform musl;
  musl.os = OperatingSystem::kMusllinux;
  musl.arch = "aarch64";
  CHECK(platform_tags(musl) == std::vector<std::string>{"linux_aarch64"});
  TagPlatform old_mac;
  old_mac.os = OperatingSystem::kMacos;
  old_mac.arch = "x86_64";
  old_mac.libc_major = 9;
  CHECK(platform_tags(old_mac).empty());

  TagPlatform absurd_libc = linux_host(2000000000);
  absurd_libc.libc_major = 2000000000;
  CHECK(platform_tags(absurd_libc).size() < 100000);
  const auto python = compatible_tags(linux_host(17, "x86_64", 2000000000));
  CHECK(python.size() < 100000);
  CHECK(python.front().to_string() == "cp3200-cp3200-manylinux_2_17_x86_64");
}
