#include "io/npy.h"

#include <cstring>
#include <vector>

#include "io/io_test_util.h"

namespace strata::test {
namespace {

using namespace std::string_view_literals;
using io::read_npy;
using io::write_npy;

// The 128-byte header numpy 1.24 writes for float32 (2, 3): np.save(f, np.zeros((2, 3), 'f4')).
constexpr std::string_view kHeaderF32x2x3 =
    "\x93NUMPY\x01\x00v\x00{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }"
    "                                                          \n"sv;

std::string header_v1(std::string_view dict) {  // a version 1.0 prefix in front of `dict`
  std::string out("\x93NUMPY\x01\x00", 8);
  out += char(dict.size() & 0xff);
  out += char(dict.size() >> 8);
  return out + std::string(dict);
}

std::string bytes_of(const Tensor& t) {
  return std::string(static_cast<const char*>(t.raw()), t.nbytes());
}

std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST(Npy, RoundTripsEveryDtype) {
  ScratchDir dir;
  const DType dtypes[] = {DType::kF32, DType::kF64, DType::kF16, DType::kI8,
                          DType::kI16, DType::kI32, DType::kI64, DType::kU8,
                          DType::kU16, DType::kU32, DType::kU64, DType::kBool};
  for (DType dtype : dtypes) {
    Tensor t = Tensor::zeros(dtype, {2, 3});
    visit_all(dtype, [&]<class T>(Type<T>) {
      for (int64_t i = 0; i < t.numel(); ++i) t.data<T>()[i] = T(float(i % 2 ? i : 0));
    });
    const std::string path = dir.path(std::string(dtype_name(dtype)) + ".npy");
    write_npy(path, t);
    const Tensor back = read_npy(path);
    EXPECT_EQ(back.dtype(), dtype) << dtype_name(dtype);
    EXPECT_EQ(back.shape(), t.shape()) << dtype_name(dtype);
    EXPECT_EQ(bytes_of(back), bytes_of(t)) << dtype_name(dtype);
  }
}

TEST(Npy, RoundTripsScalarsAndEmptyShapes) {
  ScratchDir dir;
  for (const std::vector<int64_t>& shape :
       {std::vector<int64_t>{}, {0}, {5}, {2, 0, 3}, {1, 1, 1, 1, 1, 1, 1, 1}}) {
    Tensor t = Tensor::zeros(DType::kF64, shape);
    for (int64_t i = 0; i < t.numel(); ++i) t.data<double>()[i] = 0.5 * double(i) - 1;
    write_npy(dir.path("t.npy"), t);
    const Tensor back = read_npy(dir.path("t.npy"));
    EXPECT_EQ(back.shape(), shape);
    EXPECT_EQ(bytes_of(back), bytes_of(t));
  }
}

TEST(Npy, WritesHeadersByteForByteLikeNumpy) {
  ScratchDir dir;
  write_npy(dir.path("a.npy"), Tensor::zeros(DType::kF32, {2, 3}));
  EXPECT_EQ(file_bytes(dir.path("a.npy")), std::string(kHeaderF32x2x3) + std::string(24, '\0'));

  // Outputs of np.save for a float64 scalar, a float16 image and a bool vector.
  const std::pair<Tensor, std::string_view> cases[] = {
      {Tensor::zeros(DType::kF64, {}),
       "\x93NUMPY\x01\x00v\x00{'descr': '<f8', 'fortran_order': False, 'shape': (), }"
       "                                                              \n"sv},
      {Tensor::zeros(DType::kF16, {1, 3, 224, 224}),
       "\x93NUMPY\x01\x00v\x00{'descr': '<f2', 'fortran_order': False, 'shape': (1, 3, 224, 224), }"
       "                                                \n"sv},
      {Tensor::zeros(DType::kBool, {2}),
       "\x93NUMPY\x01\x00v\x00{'descr': '|b1', 'fortran_order': False, 'shape': (2,), }"
       "                                                            \n"sv},
  };
  for (const auto& [tensor, header] : cases) {
    write_npy(dir.path("b.npy"), tensor);
    EXPECT_EQ(file_bytes(dir.path("b.npy")).substr(0, 128), header);
  }
}

TEST(Npy, ReadsFilesWrittenByNumpy) {
  ScratchDir dir;
  // np.save(f, np.array([[1.5, -2, 3], [4, 5, 6.25]], np.float32))
  const std::string v1 = dir.write(
      "v1.npy", std::string(kHeaderF32x2x3) +
                    std::string("\x00\x00\xc0?\x00\x00\x00\xc0\x00\x00@@\x00\x00\x80@\x00\x00\xa0@"
                                "\x00\x00\xc8@",
                                24));
  const Tensor a = read_npy(v1);
  EXPECT_EQ(a.dtype(), DType::kF32);
  EXPECT_EQ(a.shape(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(a.to_double(), (std::vector<double>{1.5, -2, 3, 4, 5, 6.25}));

  // np.lib.format.write_array(f, np.array([[1, 2], [3, 4]], np.int32), version=(2, 0)) and (3, 0).
  for (char major : {'\x02', '\x03'}) {
    const std::string bytes =
        std::string("\x93NUMPY", 6) + major + std::string("\x00t\x00\x00\x00", 5) +
        "{'descr': '<i4', 'fortran_order': False, 'shape': (2, 2), }"
        "                                                        \n" +
        std::string("\x01\x00\x00\x00\x02\x00\x00\x00\x03\x00\x00\x00\x04\x00\x00\x00", 16);
    const Tensor b = read_npy(dir.write("v2.npy", bytes));
    EXPECT_EQ(b.dtype(), DType::kI32);
    EXPECT_EQ(b.to_int64(), (std::vector<int64_t>{1, 2, 3, 4}));
  }
}

TEST(Npy, AcceptsHeaderVariants) {
  ScratchDir dir;
  const int64_t value = 7;
  const std::string data(reinterpret_cast<const char*>(&value), 8);
  // Key order, quotes, '=' byte order, Python 2 longs, no padding or newline.
  for (std::string_view dict : {
           R"({"shape": (1L,), "fortran_order": False, "descr": "=i8"})",
           "{'descr':'<i8','fortran_order':False,'shape':(1,)}",
           "{'descr': '<i8', 'fortran_order': False, 'shape': [1], }  \n",
       }) {
    const Tensor t = read_npy(dir.write("h.npy", header_v1(dict) + data));
    EXPECT_EQ(t.dtype(), DType::kI64) << dict;
    EXPECT_EQ(t.to_int64(), (std::vector<int64_t>{7})) << dict;
  }
  // Byte order does not matter for one-byte types.
  const Tensor u = read_npy(dir.write(
      "u.npy",
      header_v1("{'descr': '>u1', 'fortran_order': False, 'shape': (2,), }") + "\x05\xff"));
  EXPECT_EQ(u.to_int64(), (std::vector<int64_t>{5, 255}));
}

TEST(Npy, NormalisesBoolBytes) {
  ScratchDir dir;
  const Tensor t = read_npy(
      dir.write("b.npy", header_v1("{'descr': '|b1', 'fortran_order': False, 'shape': (3,), }") +
                             std::string("\x00\x01\x07", 3)));
  const auto* bytes = static_cast<const uint8_t*>(t.raw());
  EXPECT_EQ((std::vector<int>{bytes[0], bytes[1], bytes[2]}), (std::vector<int>{0, 1, 1}));
}

TEST(Npy, RejectsBadFilesNamingThem) {
  ScratchDir dir;
  const auto header = [](std::string_view descr, std::string_view fortran, std::string_view shape) {
    return header_v1(fmt::format("{{'descr': '{}', 'fortran_order': {}, 'shape': {}, }}\n", descr,
                                 fortran, shape));
  };
  const std::string ok_header = header("<f4", "False", "(2, 3)");
  const struct {
    std::string name, bytes, detail;
  } cases[] = {
      {"empty.npy", "", "not an npy file"},
      {"text.npy", "hello, this is not numpy", "not an npy file"},
      {"version.npy", std::string("\x93NUMPY\x04\x00\x10\x00", 8), "version 4.0"},
      {"short_length.npy", std::string("\x93NUMPY\x02\x00\x10\x00", 8), "header is truncated"},
      {"short_header.npy", ok_header.substr(0, 30), "header is truncated"},
      {"truncated.npy", ok_header + std::string(10, '\0'),
       "data is truncated (expected 24 bytes, found 10)"},
      {"trailing.npy", ok_header + std::string(30, '\0'),
       "does not match the shape (2, 3) (expected 24 bytes, found 30)"},
      {"big_endian.npy", header(">f4", "False", "(2,)") + std::string(8, '\0'), "big-endian"},
      {"complex.npy", header("<c8", "False", "(2,)") + std::string(16, '\0'),
       "unsupported dtype '<c8'"},
      {"object.npy", header("|O", "False", "(2,)"), "object arrays"},
      {"fortran.npy", header("<f4", "True", "(2, 3)") + std::string(24, '\0'), "Fortran-order"},
      {"huge.npy", header("<f4", "False", "(1099511627776, 1099511627776)"), "size overflow"},
      {"big_dim.npy", header("<f4", "False", "(99999999999999999999999,)"), "too large"},
      {"claims_much.npy", header("<f8", "False", "(100000000,)") + std::string(8, '\0'),
       "data is truncated (expected 800000000 bytes, found 8)"},
      {"negative.npy", header("<f4", "False", "(-1,)"), "invalid 'shape'"},
      {"garbage.npy", header_v1("not a dict"), "not a valid dictionary"},
      {"no_shape.npy", header_v1("{'descr': '<f4', 'fortran_order': False}"), "lacks one of"},
      {"extra_key.npy", header_v1("{'descr': '<f4', 'fortran_order': False, 'shape': (), 'x': 1}"),
       "unexpected key 'x'"},
      {"structured.npy",
       header_v1("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (), }"),
       "structured dtypes"},
      {"unterminated.npy", header_v1("{'descr: '<f4}"), "not a valid dictionary"},
  };
  for (const auto& c : cases) {
    const std::string path = dir.write(c.name, c.bytes);
    expect_error([&] { read_npy(path); }, path, c.detail);
  }
  EXPECT_THROW(read_npy(dir.path("missing.npy")), Error);
  expect_error([&] { read_npy(dir.path("missing.npy")); }, dir.path("missing.npy"), "No such file");
  expect_error([&] { read_npy(dir.path("")); }, dir.path(""), "directory");
}

TEST(Npy, WriteErrorsNameTheFile) {
  ScratchDir dir;
  const std::string bf16_path = dir.path("bf16.npy");
  EXPECT_THROW(write_npy(bf16_path, Tensor::zeros(DType::kBF16, {2})), Error);
  expect_error([&] { write_npy(bf16_path, Tensor::zeros(DType::kBF16, {2})); }, bf16_path,
               "bfloat16 has no npy equivalent");
  const std::string bad_path = dir.path("no/such/dir/x.npy");
  expect_error([&] { write_npy(bad_path, Tensor::zeros(DType::kF32, {2})); }, bad_path,
               "cannot create file");
}

}  // namespace
}  // namespace strata::test
