// CPU detection (reference/anchors.md §4.6): x86-64 psABI level and extensions from CPUID and
// XGETBV; aarch64 features from the auxiliary vector (AT_HWCAP, AT_HWCAP2) on Linux and from
// sysctl's hw.optional flags on macOS; both also from /proc/cpuinfo text (fake roots in tests).
#include <algorithm>
#include <functional>

#include "src/base/str.h"
#include "targets/detect/detect.h"

namespace wv::detect {
namespace {

struct Bit {
  const char* name;
  int bit;
};

bool has(const std::vector<std::string>& features, std::string_view name) {
  return std::find(features.begin(), features.end(), name) != features.end();
}

bool has_all(const std::vector<std::string>& features, std::initializer_list<const char*> names) {
  return std::all_of(names.begin(), names.end(),
                     [&](const char* name) { return has(features, name); });
}

void add_bits(std::vector<std::string>& out, std::uint64_t word, std::initializer_list<Bit> bits) {
  for (const Bit& bit : bits) {
    if ((word >> bit.bit) & 1u) out.emplace_back(bit.name);
  }
}

}  // namespace

std::vector<std::string> x86_features_from_cpuid(const CpuidWords& w) {
  std::vector<std::string> features;
  add_bits(features, w.leaf1_edx, {{"mmx", 23}, {"sse", 25}, {"sse2", 26}});
  add_bits(features, w.leaf1_ecx,
           {{"sse3", 0}, {"pclmulqdq", 1}, {"ssse3", 9}, {"cx16", 13}, {"sse4_1", 19},
            {"sse4_2", 20}, {"movbe", 22}, {"popcnt", 23}, {"aes", 25}, {"rdrand", 30}});
  add_bits(features, w.ext1_ecx, {{"lahf_lm", 0}, {"abm", 5}, {"sse4a", 6}});
  add_bits(features, w.leaf7_ebx,
           {{"fsgsbase", 0}, {"bmi1", 3}, {"bmi2", 8}, {"rdseed", 18}, {"adx", 19},
            {"clflushopt", 23}, {"clwb", 24}, {"sha_ni", 29}});
  add_bits(features, w.leaf7_ecx, {{"gfni", 8}, {"rdpid", 22}, {"movdiri", 27}, {"movdir64b", 28}});
  // Register state the OS saves: XMM|YMM for AVX, plus opmask|ZMM for AVX-512.
  const bool osxsave = (w.leaf1_ecx >> 27) & 1u;
  const bool avx_state = osxsave && (w.xcr0 & 0x6) == 0x6;
  const bool avx512_state = osxsave && (w.xcr0 & 0xe6) == 0xe6;
  if (osxsave) {
    features.emplace_back("xsave");
    add_bits(features, w.leafd_1_eax, {{"xsaveopt", 0}, {"xsavec", 1}});
  }
  if (avx_state) {
    add_bits(features, w.leaf1_ecx, {{"fma", 12}, {"avx", 28}, {"f16c", 29}});
    add_bits(features, w.leaf7_ebx, {{"avx2", 5}});
    add_bits(features, w.leaf7_ecx, {{"vaes", 9}, {"vpclmulqdq", 10}});
    add_bits(features, w.leaf7_1_eax, {{"avx_vnni", 4}});
  }
  if (avx512_state) {
    add_bits(features, w.leaf7_ebx,
             {{"avx512f", 16}, {"avx512dq", 17}, {"avx512ifma", 21}, {"avx512cd", 28},
              {"avx512bw", 30}, {"avx512vl", 31}});
    add_bits(features, w.leaf7_ecx,
             {{"avx512vbmi", 1}, {"avx512_vbmi2", 6}, {"avx512_vnni", 11},
              {"avx512_bitalg", 12}, {"avx512_vpopcntdq", 14}});
    add_bits(features, w.leaf7_edx, {{"avx512_vp2intersect", 8}});
    add_bits(features, w.leaf7_1_eax, {{"avx512_bf16", 5}});
  }
  return features;
}

int x86_64_level_from_features(const std::vector<std::string>& f) {
  if (!has_all(f, {"cx16", "lahf_lm", "popcnt", "sse3", "ssse3", "sse4_1", "sse4_2"})) return 1;
  if (!has_all(f, {"avx", "avx2", "bmi1", "bmi2", "f16c", "fma", "abm", "movbe", "xsave"})) {
    return 2;
  }
  if (!has_all(f, {"avx512f", "avx512bw", "avx512cd", "avx512dq", "avx512vl"})) return 3;
  return 4;
}

std::vector<std::string> aarch64_features_from_hwcap(std::uint64_t hwcap, std::uint64_t hwcap2) {
  std::vector<std::string> features;
  // Linux arch/arm64/include/uapi/asm/hwcap.h, names as /proc/cpuinfo prints them.
  add_bits(features, hwcap,
           {{"fp", 0},       {"asimd", 1},    {"evtstrm", 2},  {"aes", 3},     {"pmull", 4},
            {"sha1", 5},     {"sha2", 6},     {"crc32", 7},    {"atomics", 8}, {"fphp", 9},
            {"asimdhp", 10}, {"cpuid", 11},   {"asimdrdm", 12}, {"jscvt", 13}, {"fcma", 14},
            {"lrcpc", 15},   {"dcpop", 16},   {"sha3", 17},    {"sm3", 18},    {"sm4", 19},
            {"asimddp", 20}, {"sha512", 21},  {"sve", 22},     {"asimdfhm", 23}, {"dit", 24},
            {"uscat", 25},   {"ilrcpc", 26},  {"flagm", 27},   {"ssbs", 28},   {"sb", 29},
            {"paca", 30},    {"pacg", 31}});
  add_bits(features, hwcap2,
           {{"dcpodp", 0}, {"sve2", 1}, {"flagm2", 7}, {"frint", 8}, {"svei8mm", 9},
            {"svebf16", 12}, {"i8mm", 13}, {"bf16", 14}, {"dgh", 15}, {"rng", 16},
            {"bti", 17}});
  return features;
}

std::vector<std::string> aarch64_features_from_sysctl(
    const std::function<bool(std::string_view)>& flag) {
  struct Name {
    const char* feature;  // the /proc/cpuinfo spelling
    const char* sysctl;   // hw.optional.<this>; several features may share one flag
  };
  // Apple's names (the `sysctl hw.optional` listing of macOS 12 and later); the older
  // `armv8_*` spellings stand in where a newer macOS has both.
  static constexpr Name names[] = {
      {"fp", "floatingpoint"},      {"asimd", "AdvSIMD"},          {"aes", "arm.FEAT_AES"},
      {"pmull", "arm.FEAT_PMULL"},  {"sha1", "arm.FEAT_SHA1"},     {"sha2", "arm.FEAT_SHA256"},
      {"crc32", "armv8_crc32"},     {"atomics", "arm.FEAT_LSE"},   {"fphp", "arm.FEAT_FP16"},
      {"asimdhp", "arm.FEAT_FP16"}, {"asimdrdm", "arm.FEAT_RDM"},  {"jscvt", "arm.FEAT_JSCVT"},
      {"fcma", "arm.FEAT_FCMA"},    {"lrcpc", "arm.FEAT_LRCPC"},   {"dcpop", "arm.FEAT_DPB"},
      {"sha3", "arm.FEAT_SHA3"},    {"asimddp", "arm.FEAT_DotProd"},
      {"sha512", "arm.FEAT_SHA512"}, {"asimdfhm", "arm.FEAT_FHM"}, {"dit", "arm.FEAT_DIT"},
      {"uscat", "arm.FEAT_LSE2"},   {"ilrcpc", "arm.FEAT_LRCPC2"}, {"flagm", "arm.FEAT_FlagM"},
      {"ssbs", "arm.FEAT_SSBS"},    {"sb", "arm.FEAT_SB"},         {"paca", "arm.FEAT_PAuth"},
      {"pacg", "arm.FEAT_PAuth"},   {"dcpodp", "arm.FEAT_DPB2"},   {"flagm2", "arm.FEAT_FlagM2"},
      {"frint", "arm.FEAT_FRINTTS"}, {"i8mm", "arm.FEAT_I8MM"},    {"bf16", "arm.FEAT_BF16"},
      {"bti", "arm.FEAT_BTI"},      {"sme", "arm.FEAT_SME"},       {"sme2", "arm.FEAT_SME2"}};
  static constexpr Name older[] = {{"atomics", "armv8_1_atomics"}, {"fphp", "neon_fp16"},
                                   {"asimdhp", "neon_fp16"},       {"asimd", "neon"},
                                   {"sha3", "armv8_2_sha3"},       {"sha512", "armv8_2_sha512"},
                                   {"asimdfhm", "armv8_2_fhm"}};
  std::vector<std::string> features;
  auto add = [&](const Name& name) {
    if (!has(features, name.feature) && flag(name.sysctl)) features.emplace_back(name.feature);
  };
  for (const Name& name : names) add(name);
  for (const Name& name : older) add(name);
  return features;
}

std::string aarch64_version_from_features(const std::vector<std::string>& f) {
  // Each level needs the previous one (archspec's armv8.Xa feature sets, abridged).
  if (!has_all(f, {"atomics", "asimdrdm", "crc32"})) return "8a";
  if (!has_all(f, {"dcpop", "fphp", "asimdhp"})) return "8.1a";
  if (!has_all(f, {"jscvt", "fcma", "lrcpc", "paca", "pacg"})) return "8.2a";
  if (!has_all(f, {"dit", "uscat", "ilrcpc", "flagm"})) return "8.3a";
  if (!has_all(f, {"sb", "ssbs", "dcpodp", "flagm2", "frint"})) return "8.4a";
  if (!has_all(f, {"sve2"})) return "8.5a";
  return "9.0a";
}

std::vector<std::string> features_from_cpuinfo(std::string_view cpuinfo) {
  for (std::string_view line : split(cpuinfo, '\n')) {
    const std::size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    const std::string_view key = trim(line.substr(0, colon));
    if (key != "flags" && key != "Features") continue;
    std::vector<std::string> features;
    for (std::string_view word : split_whitespace(line.substr(colon + 1))) {
      // Linux calls SSE3 `pni`; archspec and the x86-64 provider call it `sse3`.
      features.emplace_back(word == "pni" ? std::string_view("sse3") : word);
    }
    return features;  // the first processor's line is enough
  }
  return {};
}

}  // namespace wv::detect
