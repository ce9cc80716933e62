#include "lock/wheel_choice.h"

#include <algorithm>

#include "base/str.h"

namespace wv::lock {

std::optional<targets::VariantClass> WheelChoice::best_class() const {
  if (compatible.empty()) return std::nullopt;
  return compatible.front().score.kind;
}

int compare_ranked_wheels(const RankedWheel& a, const RankedWheel& b) {
  if (int by_variant = targets::compare_variant_scores(a.score, b.score)) return by_variant;
  if (a.tag_rank != b.tag_rank) return a.tag_rank < b.tag_rank ? -1 : 1;
  // A higher build tag wins (PEP 427); no build tag sorts below any.
  if (a.filename.build != b.filename.build) return a.filename.build > b.filename.build ? -1 : 1;
  return a.file->filename < b.file->filename ? -1 : (a.file->filename > b.file->filename);
}

WheelChoice choose_wheels(const TargetContext& target, std::string_view package,
                          std::string_view version, const std::vector<pkg::Distribution>& wheels,
                          const Result<pkg::VariantsMetadata>* variants) {
  WheelChoice choice;
  std::optional<targets::SupportedVariants> supported;
  std::string first_variant_failure;
  std::size_t platform_matches = 0;
  for (const pkg::Distribution& file : wheels) {
    auto filename = pkg::parse_wheel_filename(file.filename);
    if (!filename) continue;
    auto rank = target.tags.best_rank(filename->tags);
    if (!rank) continue;
    ++platform_matches;
    RankedWheel ranked{&file, std::move(*filename), targets::non_variant_score(), *rank};
    if (!ranked.filename.variant_label) {
      choice.compatible.push_back(std::move(ranked));
      continue;
    }
    const std::string& label = *ranked.filename.variant_label;
    if (!variants || !*variants) {
      if (first_variant_failure.empty()) {
        first_variant_failure =
            variants ? str_cat("its variant metadata is unusable: ", variants->error().message)
                     : str_cat("variant wheel ", in_backticks(file.filename),
                               " has no `*-variants.json` describing label ",
                               in_backticks(label));
      }
      continue;
    }
    if (!supported) supported = target.providers.supported(**variants);
    targets::VariantMatch match = targets::match_variant(label, **variants, *supported);
    if (auto* score = std::get_if<targets::VariantScore>(&match)) {
      ranked.score = *score;
      choice.compatible.push_back(std::move(ranked));
    } else {
      if (first_variant_failure.empty()) {
        first_variant_failure = std::get<targets::IncompatibleVariant>(match).reason;
      }
      choice.other_variants.push_back(std::move(ranked));
    }
  }
  auto order = [](const RankedWheel& a, const RankedWheel& b) {
    return compare_ranked_wheels(a, b) < 0;
  };
  std::sort(choice.compatible.begin(), choice.compatible.end(), order);
  std::sort(choice.other_variants.begin(), choice.other_variants.end(),
            [](const RankedWheel& a, const RankedWheel& b) {
              if (a.tag_rank != b.tag_rank) return a.tag_rank < b.tag_rank;
              return a.file->filename < b.file->filename;
            });
  if (choice.compatible.empty()) {
    std::string subject = str_cat(package, " ", version);
    if (wheels.empty()) {
      choice.unavailable_reason =
          str_cat("no wheel for target ", target.name, ": ", subject,
                  " has only a source distribution (wvlock installs wheels)");
    } else if (platform_matches == 0) {
      const pkg::Tag& best_tag = target.tags.tags().front();
      choice.unavailable_reason =
          str_cat("no wheel for target ", target.name, ": no ", subject, " wheel matches ",
                  best_tag.interpreter, " ", best_tag.platform, " (has ",
                  wheels.front().filename, wheels.size() > 1 ? ", ..." : "", ")");
    } else {
      choice.unavailable_reason = str_cat("no wheel for target ", target.name, ": every ",
                                          subject, " wheel for this platform needs what the ",
                                          "target lacks: ", first_variant_failure);
    }
  }
  return choice;
}

}  // namespace wv::lock
