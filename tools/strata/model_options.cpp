#include "model_options.h"

#include <fmt/format.h>

#include <filesystem>

#include "strata/errors.h"
#include "strata/progress.h"

namespace strata::cli {

void add_model_options(CLI::App* sub, ModelOptions& o, unsigned groups) {
  if (!(groups & kNoModelPath)) sub->add_option("model", o.model, "ONNX model file")->required();
  if (groups & kInputs)
    sub->add_option("-i,--input", o.inputs,
                    "input: name=FILE, FILE (bound in order) or name=[1,2,3]; "
                    ".npy .pb .json .pgm .ppm .png .jpg");
  sub->add_option("--shape", o.shapes, "fix an input's shape: name=1x3x224x224");
  sub->add_option("--dim", o.dims, "give a named dynamic dimension a size: N=8");
  if (groups & kInputs)
    sub->add_option("--seed", o.seed, "seed for random inputs")
        ->capture_default_str()
        ->check(CLI::NonNegativeNumber);
  if (groups & kSession) {
    sub->add_option("--threads", o.threads, "threads for the kernels")
        ->capture_default_str()
        ->check(CLI::Range(1, 256));
    sub->add_option("--max-memory", o.max_memory,
                    "refuse to allocate more than this (e.g. 8G, 512M)")
        ->capture_default_str();
    sub->add_option(
           "--layout", o.layout,
           "activation layout of the fast kernels: nchw, nhwc, blocked (nChw16c or nChw8c) or auto")
        ->capture_default_str();
    sub->add_flag("--no-optimize{false}", o.optimize,
                  "run the graph as written: no constant folding, fusion or dead-node removal");
    sub->add_flag("--reference-kernels{false}", o.fast_kernels,
                  "run every node with its op's reference kernel (no oneDNN)");
    sub->add_flag("--fast-run", o.fast_run,
                  "time every implementation of each node's fast kernels at prepare and keep the "
                  "fastest");
    sub->add_option("--algo-cache", o.algo_cache,
                    "file of fast-run choices: reused when made on this CPU with these versions, "
                    "written with --fast-run");
    sub->add_option("--timeout", o.timeout,
                    "stop a run that goes on past this many seconds (exit 2, naming the node "
                    "reached; loops are checked every iteration)")
        ->check(CLI::PositiveNumber);
  }
}

void add_tolerance_options(CLI::App* sub, double& rtol, double& atol, const std::string& what) {
  sub->add_option("--rtol", rtol, "relative tolerance for " + what)->capture_default_str();
  sub->add_option("--atol", atol, "absolute tolerance for " + what)->capture_default_str();
}

std::pair<std::string, std::string> split_assignment(const std::string& text, const char* option) {
  const size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0)
    bad_option("{}: '{}' must look like name=value", option, text);
  return {text.substr(0, eq), text.substr(eq + 1)};
}

int64_t parse_bytes(const std::string& text, const char* option) {
  size_t used = 0;
  double value = 0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    bad_option("{}: '{}' is not a size like 8G or 512M", option, text);
  }
  const std::string unit = text.substr(used);
  double scale = 1;
  if (unit == "K" || unit == "KiB")
    scale = 1024.0;
  else if (unit == "M" || unit == "MiB")
    scale = 1024.0 * 1024;
  else if (unit == "G" || unit == "GiB")
    scale = 1024.0 * 1024 * 1024;
  else if (!unit.empty())
    bad_option("{}: unknown unit '{}' (use K, M or G)", option, unit);
  if (!(value > 0) || value * scale > 9e18) bad_option("{}: '{}' is out of range", option, text);
  return int64_t(value * scale);
}

std::map<std::string, int64_t> parse_dims(const std::vector<std::string>& dims) {
  std::map<std::string, int64_t> sizes;
  for (const std::string& d : dims) {
    auto [name, value] = split_assignment(d, "--dim");
    if (value.empty() || value.size() > 12 ||
        value.find_first_not_of("0123456789") != std::string::npos)
      bad_option("--dim {}: '{}' is not a size (a whole number like 8)", name, value);
    sizes[name] = std::stoll(value);
  }
  return sizes;
}

InputOptions to_input_options(const ModelOptions& o, const Warn& warn) {
  InputOptions in;
  in.sources = o.inputs;
  for (const std::string& s : o.shapes) {
    auto [name, dims] = split_assignment(s, "--shape");
    in.shapes[name] = parse_shape(dims, "--shape " + name);
  }
  in.dims = parse_dims(o.dims);
  in.seed = o.seed;
  in.warn = warn;
  return in;
}

SessionOptions to_session_options(const ModelOptions& o, const Warn& warn) {
  SessionOptions options;
  options.threads = o.threads;
  options.max_memory_bytes = parse_bytes(o.max_memory, "--max-memory");
  options.layout = o.layout;
  options.optimize = o.optimize;
  options.fast_kernels = o.fast_kernels;
  options.fast_run = o.fast_run;
  options.timeout_seconds = o.timeout;
  options.progress = terminal_progress();
  options.warn = warn;
  if (!o.algo_cache.empty()) {
    if (!o.fast_kernels)
      bad_option("--algo-cache chooses fast kernels; it cannot go with --reference-kernels");
    options.algo_cache = o.algo_cache;
    std::error_code ec;
    if (!o.fast_run && !std::filesystem::exists(o.algo_cache, ec))
      warn(
          fmt::format("{}: no algo cache there yet; the default kernels run (add --fast-run to "
                      "time every implementation and save the choices)",
                      o.algo_cache));
  }
  if (o.fast_run && !o.fast_kernels)
    bad_option("--fast-run times fast kernels; it cannot go with --reference-kernels");
  return options;
}

}  // namespace strata::cli
