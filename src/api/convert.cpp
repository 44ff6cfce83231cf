#include "api/convert.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "core/error.h"
#include "kernels/kernel.h"

namespace strata::api {

Tensor to_tensor(const Array& array) {
  if (!array.is_tensor()) {
    std::vector<Tensor> items;
    for (const Array& item : array.items()) items.push_back(to_tensor(item));
    return array.kind() == Array::Kind::kSequence ? Tensor::sequence(array.dtype(), items)
                                                  : Tensor::optional(array.dtype(), items);
  }
  Tensor t = Tensor::zeros(array.dtype(), array.shape());
  if (array.dtype() == DType::kString)
    std::copy(array.strings().begin(), array.strings().end(), t.data<std::string>());
  else if (array.nbytes())
    std::memcpy(t.raw(), array.raw(), array.nbytes());
  return t;
}

Array to_array(const Tensor& tensor, const std::string& what) {
  if (!tensor.is_tensor()) {
    std::vector<Array> items;
    for (size_t i = 0; i < tensor.items().size(); ++i)
      items.push_back(to_array(tensor.items()[i], fmt::format("{} item {}", what, i)));
    return tensor.kind() == ValueKind::kSequence ? Array::sequence(tensor.dtype(), items)
                                                 : Array::optional(tensor.dtype(), items);
  }
  if (tensor.layout() != Layout::kPlain) fail_internal("{} is not in the plain layout", what);
  if (tensor.dtype() == DType::kString) {
    Array a(DType::kString, tensor.shape());
    std::copy(tensor.data<std::string>(), tensor.data<std::string>() + tensor.numel(),
              a.strings().begin());
    return a;
  }
  return Array::copy_of(tensor.dtype(), tensor.shape(), tensor.raw(), tensor.nbytes());
}

ValueInfo value_info(const ir::Value& value) {
  ValueInfo info;
  info.name = value.name;
  info.dtype = value.dtype;
  info.shape_known = value.shape_known;
  if (value.shape_known)
    for (const Dim& d : value.shape.dims()) {
      info.shape.push_back(d.is_static() ? d.value() : -1);
      info.dims.push_back(d.is_static() ? "" : d.symbol());
    }
  return info;
}

runtime::SessionOptions session_options(const SessionOptions& o) {
  runtime::SessionOptions options;
  if (o.threads < 1 || o.threads > 256) fail("threads must be 1 to 256, not {}", o.threads);
  if (o.max_memory_bytes <= 0) fail("max_memory_bytes must be positive");
  if (o.timeout_seconds < 0) fail("timeout_seconds must not be negative");
  options.threads = o.threads;
  options.max_memory_bytes = o.max_memory_bytes;
  options.fast_kernels = o.fast_kernels;
  options.layout = kernels::parse_layout_policy(o.layout);
  options.timeout_seconds = o.timeout_seconds;
  if ((o.fast_run || !o.algo_cache.empty()) && !o.fast_kernels)
    fail("fast_run and algo_cache choose among fast kernels; they need fast_kernels");
  options.fast_run = o.fast_run;
  if (!o.algo_cache.empty())
    options.algo_cache = std::make_shared<runtime::AlgoCache>(o.algo_cache, o.warn);
  options.progress = o.progress;
  return options;
}

runtime::Tolerance tolerance(const CompareOptions& o) {
  runtime::Tolerance t;
  t.rtol = o.rtol;
  t.atol = o.atol;
  t.relative_to_tensor = !o.elementwise;
  return t;
}

ValueComparison value_comparison(const std::string& value, const runtime::Comparison& c) {
  ValueComparison v;
  v.value = value;
  v.ok = c.ok;
  v.problem = c.problem;
  v.max_abs_error = c.max_abs_error;
  v.max_rel_error = c.max_rel_error;
  v.cosine = c.cosine;
  v.mismatches = c.mismatches;
  v.max_ulp = c.max_ulp;
  return v;
}

}  // namespace strata::api
