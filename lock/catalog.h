// What resolution reads from a PackageSource, read once for every target: each project's files
// grouped by version (ascending), each wheel's METADATA parsed once, each version's variant
// metadata merged once (DESIGN.md §6: "metadata parsed once for all targets").
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "src/base/result.h"
#include "src/pkg/metadata.h"
#include "src/pkg/source.h"

namespace wv::lock {

/// The files of one version of a project.
struct VersionFiles {
  pkg::Version version;
  std::vector<pkg::Distribution> wheels;
  std::vector<pkg::Distribution> sdists;
  bool has_variant_wheels = false;
  /// Every file of the version is yanked (PEP 592): usable only through an `==` pin.
  bool yanked = false;
  /// The location and index name that listed this version (with unsafe-best-match, versions
  /// of one listing may come from several indexes; one version's files never do).
  std::string index;
  std::string index_name;
};

/// A project's versions, ascending; the solver's version of a package is an index here.
struct ProjectListing {
  pkg::PackageName name;
  std::vector<VersionFiles> versions;
  std::string index;       ///< the location that listed it (URL or folder)
  std::string index_name;  ///< the configured index's name ("" for find-links)
  /// The pinned index it was listed from (`[tool.wvlock.sources]`); "" for the default chain.
  std::string pinned;
  pkg::PackageSource* source = nullptr;  ///< where its files' metadata comes from
  /// When no source knows the project: the source's words for it ("no package source has a
  /// project named `nmupy` (searched ...)"); "" otherwise.
  std::string not_found;

  /// The index of `version`, or -1.
  int find(const pkg::Version& version) const;
};

class Catalog {
 public:
  explicit Catalog(pkg::PackageSource& source) : source_(source) {}

  /// Registers the source of the pinned index `index` (its listings come from it alone).
  void add_pinned_index(std::string index, pkg::PackageSource& source);

  /// The listing of `name` from the default chain, or from the pinned index `pinned`; a
  /// project the source does not know has an empty listing. An error when `pinned` names no
  /// registered index.
  Result<const ProjectListing*> listing(const pkg::PackageName& name, std::string_view pinned = "");
  /// Prefetch hints (pkg::PackageSource): the listings of these (name, pinned index) pairs,
  /// the variant metadata of these versions, the METADATA of these wheels, fetched in parallel
  /// where a source can. They change no answer and keep no failure; each says, per item,
  /// whether listing(), variants() or metadata() now answers without the network.
  std::vector<bool> prefetch_listings(
      const std::vector<std::pair<pkg::PackageName, std::string>>& wanted);
  std::vector<bool> prefetch_variants(
      const std::vector<std::pair<const ProjectListing*, pkg::Version>>& wanted);
  std::vector<bool> prefetch_metadata(const std::vector<const pkg::Distribution*>& wheels);
  /// The registered pinned indexes that list a version of `name`, in registration order (for
  /// the hint when the default chain has none: the package sits on an explicit index).
  std::vector<std::string> pinned_indexes_listing(const pkg::PackageName& name);
  /// The names of the projects read so far that list at least one version, sorted (what a
  /// "did you mean" may suggest without asking any index).
  std::vector<std::string> listed_names() const;
  /// The parsed METADATA of a wheel (cached by URL).
  Result<const pkg::CoreMetadata*> metadata(const pkg::Distribution& wheel);
  /// Reads the METADATA of several wheels in one batch (parallel where the source can), as
  /// metadata() would one by one: failures are kept as their answers.
  void read_metadata(const std::vector<const pkg::Distribution*>& wheels);
  /// The sha256 of a listed file (the listing's, else computed by the source).
  Result<std::string> file_sha256(const pkg::Distribution& file) {
    return source_of(file).file_sha256(file);
  }
  /// The size of a listed file (the listing's, else what the source learned since).
  std::optional<std::uint64_t> file_size(const pkg::Distribution& file) {
    return source_of(file).file_size(file);
  }
  /// The merged variant metadata of a version of `listing` (cached); an error says why it is
  /// unusable.
  const Result<pkg::VariantsMetadata>& variants(const ProjectListing& listing,
                                                const pkg::Version& version);

 private:
  pkg::PackageSource& source_of(const pkg::Distribution& file);
  void store_metadata(const pkg::Distribution& wheel, Result<std::string> text);
  static std::string variants_key(const ProjectListing& listing, const pkg::Version& version);

  pkg::PackageSource& source_;
  std::map<std::string, pkg::PackageSource*, std::less<>> pinned_;
  /// File URL -> the source that listed it.
  std::map<std::string, pkg::PackageSource*> file_sources_;
  std::map<std::string, std::unique_ptr<ProjectListing>> listings_;
  std::map<std::string, Result<std::unique_ptr<pkg::CoreMetadata>>> metadata_;
  std::map<std::string, Result<pkg::VariantsMetadata>> variants_;
};

}  // namespace wv::lock
