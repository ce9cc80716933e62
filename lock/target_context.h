// Everything one target's resolution needs, computed once: its marker environment (prepared
// for fast evaluation), its ordered tag list, its providers' output, and the marker that names
// its platform in the lockfile's `environments`.
#pragma once

#include <string>
#include <vector>

#include "src/pkg/direct_source.h"
#include "src/pkg/marker.h"
#include "src/pkg/name.h"
#include "src/pkg/tags.h"
#include "src/pkg/version.h"
#include "targets/host_profile.h"
#include "targets/providers.h"
#include "targets/target.h"

namespace wv::lock {

struct TargetContext {
  TargetContext(std::string name, targets::HostProfile host, pkg::MarkerEnvironment markers,
                std::vector<pkg::Tag> tags, targets::ProviderOptions provider_options = {});

  std::string name;
  targets::HostProfile host;
  pkg::PreparedEnvironment environment;
  pkg::TagPriority tags;
  targets::HostProviders providers;
  /// python_full_version as a Version, for Requires-Python.
  pkg::Version python_version;
  /// `platform_machine == "x86_64" and python_version == "3.12" and sys_platform == "linux"`.
  std::string platform_marker;
  /// The target as the lockfile records it (declared facts and properties; what install
  /// checks a host against).
  targets::Target declared;
  /// targets::declared_facts(declared): the facts in pyproject spelling, for the input hash.
  std::map<std::string, std::string> facts;
  /// The project extras this target locks and installs (the target's `extras` key, PEP 685
  /// normalised). An extra such as `cuda = ["flash-attn"]` belongs to the targets that can
  /// have it; the others never resolve it.
  std::vector<pkg::ExtraName> extras;
  /// Packages pinned to a named index for this target (`[tool.wvlock.sources]`): normalised
  /// name -> index name. The pinned index alone lists them, wherever the target needs them.
  std::map<pkg::PackageName, std::string> pinned_indexes;
  /// Packages that come from a path, URL or git source for this target (`[tool.wvlock.sources]`
  /// or a direct reference `name @ URL` of the project): normalised name -> the source. The
  /// catalog lists them from the source registered under DirectSource::key().
  std::map<pkg::PackageName, pkg::DirectSource> direct_sources;
};

/// The context of a declared target: its marker environment and tags from its host profile,
/// its declared facts recorded in pyproject spelling. Without `with_tags` its tag list is
/// empty: a context for the input-hash alone (a sync's freshness check), which ranks no wheel
/// and skips the ~700 tags each target's list costs.
Result<TargetContext> make_target_context(const targets::Target& target,
                                          targets::ProviderOptions options = {},
                                          bool with_tags = true);

}  // namespace wv::lock
