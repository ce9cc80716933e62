// Source distribution filenames (`{name}-{version}.tar.gz` / `.zip`, PyPA "Source
// distribution format"; packaging's parse_sdist_filename), the index-level variant metadata
// file `{name}-{version}-variants.json` (PEP 817/825, reference/variants.md §2), and a
// classifier that tells what a listed file is from its name alone.
// See docs/tags-and-filenames.md.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "src/base/result.h"
#include "src/pkg/name.h"
#include "src/pkg/version.h"
#include "src/pkg/wheel_filename.h"

namespace wv::pkg {

/// Archive formats of a source distribution.
enum class SdistFormat { kTarGz, kZip };

/// A parsed source distribution filename.
struct SdistFilename {
  PackageName name;  ///< normalised
  Version version;   ///< parsed
  SdistFormat format = SdistFormat::kTarGz;

  /// Canonical filename: name with `-` escaped to `_`, normalised version, extension.
  std::string to_string() const;

  friend bool operator==(const SdistFilename&, const SdistFilename&) = default;
};

/// Parses `name-version.tar.gz` or `name-version.zip`. Legacy names may hold dashes
/// (`python-dateutil-2.8.2.tar.gz`) and so may legacy versions (`foo-1.0-beta.tar.gz`):
/// the split is at the rightmost `-` whose left side is a valid name and right side a valid
/// PEP 440 version; when no split works the error names the whole stem.
Result<SdistFilename> parse_sdist_filename(std::string_view filename);

/// Parses with the project name known (an index page lists the files of one project): the
/// stem must begin with that name, compared normalised, then `-` and the version. This is
/// the only reliable split for legacy names whose version also contains a dash.
Result<SdistFilename> parse_sdist_filename(std::string_view filename,
                                           const PackageName& project);

/// A parsed `{name}-{version}-variants.json` filename.
struct VariantsJsonFilename {
  PackageName name;  ///< normalised
  Version version;

  /// Canonical filename (`nvidia_cublas-12.8.4.1-variants.json`).
  std::string to_string() const;

  friend bool operator==(const VariantsJsonFilename&, const VariantsJsonFilename&) = default;
};

/// Parses `{name}-{version}-variants.json`; the name is everything before the last `-` of
/// the stem (wheel-style escaped names have no dash; a dashed name is accepted too).
Result<VariantsJsonFilename> parse_variants_json_filename(std::string_view filename);

/// What a file listed by an index or folder is.
enum class FileKind {
  kWheel,         ///< a wheel, with or without a variant label (see `wheel->variant_label`)
  kSdist,         ///< a source distribution (.tar.gz / .zip)
  kVariantsJson,  ///< `{name}-{version}-variants.json`
  kOther,         ///< anything else, including wheel/sdist names that do not parse
};

/// The classification of one file name. Exactly the member that matches `kind` is set; for
/// kOther, `reason` says why (unknown extension, or the parse error of a would-be wheel).
struct ClassifiedFile {
  FileKind kind = FileKind::kOther;
  std::optional<WheelFilename> wheel;
  std::optional<SdistFilename> sdist;
  std::optional<VariantsJsonFilename> variants_json;
  std::string reason;
};

/// Classifies a bare file name by its suffix and then by parsing it. A URL or path is not
/// split here: pass url_filename(href) (base/url.h). Never fails; a malformed
/// name is kOther with the reason.
ClassifiedFile classify_filename(std::string_view filename);

}  // namespace wv::pkg
