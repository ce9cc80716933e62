// resolve_inside: links inside a tree are followed, links out of it (absolute, relative, through
// a parent folder) are refused naming where they lead, a missing path is kNotFound, and a root
// reached through a link is the folder it ends at.
#include "src/base/contained_path.h"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "tests/support/temp_dir.h"

namespace {

namespace fs = std::filesystem;

std::string real(const std::string& path) { return fs::canonical(path).string(); }

bool contains(const std::string& text, std::string_view piece) {
  return text.find(piece) != std::string::npos;
}

// <tmp>/tree: file, sub/file, in -> sub, out -> <tmp>/secret, rel -> ../secret,
// deep -> sub/../../secret, gone -> missing; <tmp>/tree2 (a sibling sharing the prefix).
struct Tree {
  wv::test::TempDir dir;
  std::string root = dir.file("tree");
  Tree() {
    fs::create_directories(root + "/sub");
    fs::create_directories(dir.file("tree2"));
    std::ofstream(root + "/file") << "x";
    std::ofstream(root + "/sub/file") << "y";
    std::ofstream(dir.file("secret")) << "secret";
    std::ofstream(dir.file("tree2/file")) << "z";
    fs::create_directory_symlink("sub", root + "/in");
    fs::create_symlink(dir.file("secret"), root + "/out");
    fs::create_symlink("../secret", root + "/rel");
    fs::create_symlink("../tree2", root + "/sibling");
    fs::create_symlink("missing", root + "/gone");
  }
};

}  // namespace

TEST_CASE("resolve_inside: files and links inside the tree resolve to their real path",
          "[base][contained]") {
  Tree tree;
  CHECK(*wv::resolve_inside(tree.root, "file", "the tree") == real(tree.root + "/file"));
  CHECK(*wv::resolve_inside(tree.root, "in/file", "the tree") == real(tree.root + "/sub/file"));
  CHECK(*wv::resolve_inside(tree.root, "in", "the tree") == real(tree.root + "/sub"));
  CHECK(*wv::resolve_inside(tree.root, "", "the tree") == real(tree.root));
  // A root the user reached through a link: what it ends at is the root.
  fs::create_directory_symlink(tree.root, tree.dir.file("alias"));
  CHECK(*wv::resolve_inside(tree.dir.file("alias"), "in/file", "the tree") ==
        real(tree.root + "/sub/file"));
}

TEST_CASE("resolve_inside: links out of the tree are refused naming where they lead",
          "[base][contained]") {
  Tree tree;
  for (const char* leaf : {"out", "rel", "sibling/file", "sub/../../secret", "/etc/passwd"}) {
    INFO(leaf);
    auto refused = wv::resolve_inside(tree.root, leaf, "the checkout of git `x`");
    REQUIRE_FALSE(refused);
    CHECK(refused.error().code == wv::ErrorCode::kInvalidInput);
    CHECK(contains(refused.error().message, std::string("`") + leaf + "`"));
    CHECK(contains(refused.error().message, "the checkout of git `x`"));
    CHECK(contains(refused.error().message, "outside"));
  }
  auto out = wv::resolve_inside(tree.root, "out", "the tree");
  REQUIRE_FALSE(out);
  CHECK(contains(out.error().message, real(tree.dir.file("secret"))));
}

TEST_CASE("resolve_inside: a missing path or root is kNotFound", "[base][contained]") {
  Tree tree;
  for (const char* leaf : {"nothing", "gone", "sub/nothing"}) {
    INFO(leaf);
    auto missing = wv::resolve_inside(tree.root, leaf, "the tree");
    REQUIRE_FALSE(missing);
    CHECK(missing.error().code == wv::ErrorCode::kNotFound);
  }
  auto no_root = wv::resolve_inside(tree.dir.file("nowhere"), "file", "the tree");
  REQUIRE_FALSE(no_root);
  CHECK(no_root.error().code == wv::ErrorCode::kNotFound);
}
