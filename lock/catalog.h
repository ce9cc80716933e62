// What resolution reads from a PackageSource, read once for every target: each project's files
// grouped by version (ascending), each wheel's METADATA parsed once, each version's variant
// metadata merged once (DESIGN.md §6: "metadata parsed once for all targets").
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "base/result.h"
#include "pkg/metadata.h"
#include "pkg/source.h"

namespace wv::lock {

/// The files of one version of a project.
struct VersionFiles {
  pkg::Version version;
  std::vector<pkg::Distribution> wheels;
  std::vector<pkg::Distribution> sdists;
  bool has_variant_wheels = false;
  /// Every file of the version is yanked (PEP 592): usable only through an `==` pin.
  bool yanked = false;
};

/// A project's versions, ascending; the solver's version of a package is an index here.
struct ProjectListing {
  pkg::PackageName name;
  std::vector<VersionFiles> versions;
  std::string index;  ///< the source that listed it

  /// The index of `version`, or -1.
  int find(const pkg::Version& version) const;
};

class Catalog {
 public:
  explicit Catalog(pkg::PackageSource& source) : source_(source) {}

  /// The listing of `name`; a project no source knows has an empty listing.
  Result<const ProjectListing*> listing(const pkg::PackageName& name);
  /// The parsed METADATA of a wheel (cached by URL).
  Result<const pkg::CoreMetadata*> metadata(const pkg::Distribution& wheel);
  /// Fetches the METADATA of several wheels in one batch (parallel where the source can).
  void prefetch_metadata(const std::vector<const pkg::Distribution*>& wheels);
  /// The sha256 of a listed file (the listing's, else computed by the source).
  Result<std::string> file_sha256(const pkg::Distribution& file) { return source_.file_sha256(file); }
  /// The merged variant metadata of a version (cached); an error says why it is unusable.
  const Result<pkg::VariantsMetadata>& variants(const pkg::PackageName& name,
                                                const pkg::Version& version);

 private:
  pkg::PackageSource& source_;
  std::map<std::string, std::unique_ptr<ProjectListing>> listings_;
  std::map<std::string, Result<std::unique_ptr<pkg::CoreMetadata>>> metadata_;
  std::map<std::string, Result<pkg::VariantsMetadata>> variants_;
};

}  // namespace wv::lock
