// The subcommands: one row each in the table of main.cc (ninja's kTools).
#pragma once

#include <string_view>

#include "src/cli/options.h"

namespace wv::cli {

using CommandFunction = int (*)(const GlobalOptions&, Arguments&);

struct Command {
  const char* name;
  const char* summary;
  CommandFunction run;
};

int run_lock(const GlobalOptions& options, Arguments& arguments);
int run_detect(const GlobalOptions& options, Arguments& arguments);
int run_check(const GlobalOptions& options, Arguments& arguments);
int run_tree(const GlobalOptions& options, Arguments& arguments);
int run_why(const GlobalOptions& options, Arguments& arguments);
int run_export(const GlobalOptions& options, Arguments& arguments);
int run_sync(const GlobalOptions& options, Arguments& arguments);
int run_targets(const GlobalOptions& options, Arguments& arguments);
int run_cache(const GlobalOptions& options, Arguments& arguments);
int run_fetch(const GlobalOptions& options, Arguments& arguments);
int run_add(const GlobalOptions& options, Arguments& arguments);
int run_remove(const GlobalOptions& options, Arguments& arguments);
int run_init(const GlobalOptions& options, Arguments& arguments);
int run_run(const GlobalOptions& options, Arguments& arguments);

/// Whether `option` of `wvlock run` takes a value (`--target NAME`): main.cc's parse needs it
/// to tell the value from CMD, where every global option stops.
bool run_option_takes_value(std::string_view option);

}  // namespace wv::cli
