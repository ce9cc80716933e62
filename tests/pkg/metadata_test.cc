#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "src/pkg/metadata.h"

using wv::pkg::parse_metadata;

namespace {

// The shape of torch 2.9.0's METADATA (abridged), LF endings.
constexpr const char* kTorchMetadata =
    "Metadata-Version: 2.4\n"
    "Name: torch\n"
    "Version: 2.9.0\n"
    "Summary: Tensors and Dynamic neural networks in Python with strong GPU acceleration\n"
    "Home-page: https://pytorch.org/\n"
    "Author: PyTorch Team\n"
    "License-Expression: BSD-3-Clause\n"
    "Classifier: Programming Language :: Python :: 3.12\n"
    "Requires-Python: >=3.10\n"
    "Description-Content-Type: text/markdown\n"
    "License-File: LICENSE\n"
    "Requires-Dist: filelock\n"
    "Requires-Dist: typing-extensions>=4.10.0\n"
    "Requires-Dist: sympy>=1.13.3\n"
    "Requires-Dist: nvidia-cuda-nvrtc-cu12==12.8.93; platform_system == \"Linux\" and "
    "platform_machine == \"x86_64\"\n"
    "Requires-Dist: triton==3.5.0; platform_system == \"Linux\"\n"
    "Requires-Dist: optree>=0.13.0; extra == \"optree\"\n"
    "Requires-Dist: opt-einsum>=3.3; extra == \"opt-einsum\"\n"
    "Provides-Extra: optree\n"
    "Provides-Extra: opt-einsum\n"
    "Provides-Extra: pyyaml\n"
    "Dynamic: author\n"
    "Dynamic: license-file\n"
    "\n"
    "![PyTorch Logo](https://github.com/pytorch/pytorch/raw/main/docs/source/_static/img/"
    "pytorch-logo-dark.png)\n"
    "Not: a header, this is the description body\n"
    "no colon here either\n";

}  // namespace

TEST_CASE("metadata: the fields of a real METADATA file", "[pkg][metadata]") {
  auto metadata = parse_metadata(kTorchMetadata);
  REQUIRE(metadata);
  CHECK(metadata->metadata_version == "2.4");
  CHECK(metadata->name.str() == "torch");
  CHECK(metadata->version.to_string() == "2.9.0");
  CHECK(metadata->requires_python_raw == ">=3.10");
  CHECK(metadata->requires_python.to_string() == ">=3.10");
  REQUIRE(metadata->requires_dist.size() == 7);
  CHECK(metadata->requires_dist[0].raw == "filelock");
  CHECK(metadata->requires_dist[0].line == 12);
  CHECK(metadata->requires_dist[3].requirement.normalized_name() == "nvidia-cuda-nvrtc-cu12");
  CHECK(metadata->requires_dist[3].requirement.specifier.to_string() == "==12.8.93");
  CHECK_FALSE(metadata->requires_dist[3].requirement.marker.is_empty());
  CHECK(metadata->requires_dist[6].requirement.name == "opt-einsum");
  CHECK(metadata->provides_extra == std::vector<std::string>{"optree", "opt-einsum", "pyyaml"});
  CHECK(metadata->dynamic == std::vector<std::string>{"author", "license-file"});
  CHECK(metadata->values("summary").size() == 1);
  CHECK(metadata->values("classifier").front() == "Programming Language :: Python :: 3.12");
  // The body is not read: its lines are neither fields nor errors.
  CHECK(metadata->values("Not").empty());
}

TEST_CASE("metadata: CRLF line endings are accepted", "[pkg][metadata]") {
  std::string crlf;
  for (const char* p = kTorchMetadata; *p; ++p) {
    if (*p == '\n') crlf += '\r';
    crlf += *p;
  }
  auto lf = parse_metadata(kTorchMetadata);
  auto metadata = parse_metadata(crlf);
  REQUIRE(metadata);
  CHECK(metadata->name_as_written == "torch");
  CHECK(metadata->requires_dist.size() == lf->requires_dist.size());
  for (std::size_t i = 0; i < metadata->requires_dist.size(); ++i) {
    CHECK(metadata->requires_dist[i].raw == lf->requires_dist[i].raw);
  }
  CHECK(metadata->requires_python_raw == ">=3.10");
}

TEST_CASE("metadata: continuation lines unfold into the value", "[pkg][metadata]") {
  auto metadata = parse_metadata(
      "Metadata-Version: 1.0\n"
      "Name: Old_Package\n"
      "Version: 1.0\n"
      "Summary: a summary that goes\n"
      "  on and on\n"
      "Requires-Dist: requests (>=2.0) ;\n"
      "\tpython_version >= \"3.8\"\n"
      "License: line one\n"
      "        line two\n"
      "   \n"
      "Keywords: a b\n");
  REQUIRE(metadata);
  CHECK(metadata->name.str() == "old-package");
  CHECK(metadata->name_as_written == "Old_Package");
  CHECK(metadata->values("Summary").front() == "a summary that goes  on and on");
  REQUIRE(metadata->requires_dist.size() == 1);
  CHECK(metadata->requires_dist[0].line == 6);
  CHECK(metadata->requires_dist[0].requirement.specifier.to_string() == ">=2.0");
  CHECK_FALSE(metadata->requires_dist[0].requirement.marker.is_empty());
  CHECK(metadata->values("Keywords").front() == "a b");
  CHECK(metadata->fields.back().line == 11);
}

TEST_CASE("metadata: PKG-INFO 1.0 without optional fields", "[pkg][metadata]") {
  auto metadata = parse_metadata("Name: six\nVersion: 1.16.0\n");
  REQUIRE(metadata);
  CHECK(metadata->metadata_version.empty());
  CHECK(metadata->requires_dist.empty());
  CHECK(metadata->requires_python.empty());
  CHECK(metadata->provides_extra.empty());
  // Field names are case-insensitive; extras normalise and deduplicate.
  auto mixed = parse_metadata(
      "metadata-version: 2.1\nNAME: x\nversion: 1\nprovides-extra: Dev_Tools\n"
      "Provides-Extra: dev.tools\nrequires-dist: y; extra == 'dev-tools'\n");
  REQUIRE(mixed);
  CHECK(mixed->provides_extra == std::vector<std::string>{"dev-tools"});
  CHECK(mixed->requires_dist.size() == 1);
  CHECK(parse_metadata("Metadata-Version: 2.5\nName: x\nVersion: 1\n"));
}

TEST_CASE("metadata: malformed input names the line", "[pkg][metadata]") {
  struct Case {
    const char* text;
    const char* expected;
  };
  for (const Case& c : std::vector<Case>{
           {"Name: x\nVersion: 1\nthis line has no colon\n", "METADATA line 3"},
           {"Name: x\nVersion: 1\nBad Name: y\n", "METADATA line 3: invalid field name"},
           {" continuation first\nName: x\nVersion: 1\n", "METADATA line 1"},
           {": value\nName: x\nVersion: 1\n", "METADATA line 1"},
           {"Metadata-Version: 2.1\nVersion: 1\n", "no `Name`"},
           {"Name: x\n", "no `Version`"},
           {"Name: x\r\nVersion: one.two\r\n", "METADATA line 2"},
           {"Name: x y\nVersion: 1\n", "METADATA line 1"},
           {"Name: x\nVersion: 1\nVersion: 2\n", "METADATA line 3: repeated field `Version`"},
           {"Name: x\nVersion: 1\nRequires-Python: >=3.x\n", "METADATA line 3: Requires-Python"},
           {"Name: x\nVersion: 1\nRequires-Dist: ok\nRequires-Dist: bad[\n",
            "METADATA line 4: Requires-Dist"},
           {"Name: x\nVersion: 1\nProvides-Extra:\n", "METADATA line 3: empty Provides-Extra"},
           {"Metadata-Version: two\nName: x\nVersion: 1\n", "METADATA line 1: invalid Metadata"},
           {"", "no `Name`"},
           {"\nName: x\nVersion: 1\n", "no `Name`"},
       }) {
    auto metadata = parse_metadata(c.text);
    INFO(c.text);
    REQUIRE_FALSE(metadata);
    CHECK(metadata.error().message.find(c.expected) != std::string::npos);
    CHECK(metadata.error().code == wv::ErrorCode::kParse);
  }
  // A repeated field after the blank line is body text, not a repetition.
  auto body = parse_metadata("Name: x\nVersion: 1\n\nVersion: 2\n");
  REQUIRE(body);
  CHECK(body->version.to_string() == "1");
  auto future = parse_metadata("Metadata-Version: 3.0\nName: x\nVersion: 1\n");
  REQUIRE_FALSE(future);
  CHECK(future.error().code == wv::ErrorCode::kUnsupported);
}

TEST_CASE("metadata: arbitrary bytes never crash the parser", "[pkg][metadata]") {
  const std::string seed = kTorchMetadata;
  unsigned state = 99;
  auto next = [&] {
    state = state * 1103515245u + 12345u;
    return state >> 16;
  };
  int parsed = 0;
  for (int round = 0; round < 1500; ++round) {
    std::string text = seed;
    const int edits = 1 + static_cast<int>(next() % 8);
    for (int e = 0; e < edits && !text.empty(); ++e) {
      const std::size_t at = next() % text.size();
      switch (next() % 4) {
        case 0: text[at] = static_cast<char>(next() & 0xff); break;
        case 1: text.erase(at, 1 + next() % 20); break;
        case 2: text.insert(at, 1, "\n\r: \t\0\xff"[next() % 7]); break;
        default: text.resize(at); break;
      }
    }
    auto metadata = parse_metadata(text);
    if (metadata) {
      ++parsed;
      for (const auto& dist : metadata->requires_dist) CHECK(dist.line > 0);
    } else {
      CHECK_FALSE(metadata.error().message.empty());
    }
  }
  CHECK(parsed > 0);
}
