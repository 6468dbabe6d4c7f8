//===- EngineFileTest.cpp - the .int21 engine format: round trip, refusals ===//

#include "int21/Runtime/EngineFile.h"
#include "int21/Runtime/Tensors.h"

#include "llvm/Support/xxhash.h"

#include "gtest/gtest.h"

using namespace int21::runtime;

namespace {

EngineMetadata sampleMetadata() {
  EngineMetadata meta;
  meta.target = "cpu:x86_64-unknown-linux-gnu:x86-64-v3";
  meta.compilerVersion = "int21 0.1";
  meta.inputs = {{"input", DType::F32, {1, 3, 224, 224}}};
  meta.outputs = {{"logits", DType::F32, {1, 1000}},
                  {"ids", DType::I64, {1}}};
  return meta;
}

std::string writeSample(llvm::StringRef code, llvm::StringRef weights) {
  std::string bytes;
  llvm::raw_string_ostream os(bytes);
  writeEngineFile(sampleMetadata(),
                  {{SectionKind::Code, "main", code},
                   {SectionKind::Weights, "weights", weights}},
                  os);
  os.flush();
  return bytes;
}

llvm::Expected<EngineFile>
readBytes(const std::string &bytes,
          std::optional<llvm::StringRef> target = std::nullopt) {
  return EngineFile::read(
      llvm::MemoryBuffer::getMemBufferCopy(bytes, "engine.int21"),
      "engine.int21", target);
}

std::string errorOf(llvm::Expected<EngineFile> file) {
  if (file)
    return "";
  return llvm::toString(file.takeError());
}

TEST(EngineFileTest, RoundTripKeepsMetadataAndSections) {
  std::string weights(1000, '\x07');
  std::string bytes = writeSample("object code", weights);
  llvm::Expected<EngineFile> file =
      readBytes(bytes, llvm::StringRef("cpu:x86_64-unknown-linux-gnu:x86-64-v3"));
  ASSERT_TRUE(bool(file)) << llvm::toString(file.takeError());
  EXPECT_EQ(file->metadata().target, sampleMetadata().target);
  EXPECT_EQ(file->metadata().compilerVersion, "int21 0.1");
  EXPECT_EQ(file->metadata().inputs, sampleMetadata().inputs);
  EXPECT_EQ(file->metadata().outputs, sampleMetadata().outputs);
  std::optional<Section> code = file->find(SectionKind::Code, "main");
  ASSERT_TRUE(code.has_value());
  EXPECT_EQ(code->data, "object code");
  std::optional<Section> w = file->find(SectionKind::Weights);
  ASSERT_TRUE(w.has_value());
  EXPECT_EQ(w->data, weights);
  // Section data is 64-byte aligned within the file, so mapped weights can
  // be used in place.
  EXPECT_EQ((w->data.data() - code->data.data()) % 64, 0);
  EXPECT_FALSE(file->find(SectionKind::Code, "other").has_value());
}

TEST(EngineFileTest, DTypeNamesRoundTrip) {
  for (DType t : {DType::F16, DType::BF16, DType::F32, DType::F64, DType::Bool,
                  DType::I8, DType::I16, DType::I32, DType::I64, DType::U8,
                  DType::U16, DType::U32, DType::U64})
    EXPECT_EQ(parseDType(dtypeName(t)), t);
  EXPECT_EQ(dtypeSize(DType::BF16), 2u);
  EXPECT_FALSE(parseDType("complex64").has_value());
}

TEST(EngineFileTest, RefusesAFileThatIsNotAnEngine) {
  EXPECT_NE(errorOf(readBytes("hello, world")).find(
                "not an int21 engine"),
            std::string::npos);
  EXPECT_NE(errorOf(readBytes("")).find("not an int21 engine"),
            std::string::npos);
}

TEST(EngineFileTest, RefusesAnotherFormatVersion) {
  std::string bytes = writeSample("code", "w");
  bytes[8] = 2; // The little-endian format version.
  std::string error = errorOf(readBytes(bytes));
  EXPECT_NE(error.find("engine format version 2 is not supported"),
            std::string::npos)
      << error;
}

TEST(EngineFileTest, RefusesAnEngineForAnotherTarget) {
  std::string error =
      errorOf(readBytes(writeSample("code", "w"), llvm::StringRef("sm_90")));
  EXPECT_NE(error.find("compiled for target "
                       "'cpu:x86_64-unknown-linux-gnu:x86-64-v3', not for "
                       "'sm_90'"),
            std::string::npos)
      << error;
}

TEST(EngineFileTest, RefusesEveryCorruptByte) {
  std::string good = writeSample("some object code", std::string(300, 'w'));
  for (size_t i = 32; i < good.size(); ++i) {
    std::string bad = good;
    bad[i] ^= 0x5a;
    std::string error = errorOf(readBytes(bad));
    EXPECT_NE(error.find("checksum mismatch"), std::string::npos)
        << "byte " << i << ": " << error;
  }
}

TEST(EngineFileTest, RefusesEveryTruncation) {
  std::string good = writeSample("some object code", std::string(300, 'w'));
  for (size_t size = 0; size < good.size(); ++size) {
    std::string error = errorOf(readBytes(good.substr(0, size)));
    EXPECT_FALSE(error.empty()) << "a file cut to " << size
                                << " bytes was accepted";
  }
}

TEST(EngineFileTest, RefusesSectionsThatLieAboutTheirSize) {
  // A header whose checksum is right but whose section table is not: the
  // bounds checks, not the checksum, must catch it.
  std::string good = writeSample("code", "weights");
  std::string payload = good.substr(32);
  payload[8] = '\x7f'; // The metadata section's data size, low byte.
  payload[15] = '\x7f'; // ... and its high byte: far past the end.
  std::string header = good.substr(0, 24);
  uint64_t checksum = llvm::xxh3_64bits(payload);
  for (int i = 0; i < 8; ++i)
    header.push_back(static_cast<char>((checksum >> (8 * i)) & 0xff));
  std::string error = errorOf(readBytes(header + payload));
  EXPECT_NE(error.find("runs past the end of the file"), std::string::npos)
      << error;
}

/// An engine file of one metadata section holding `metadata` as it is.
std::string engineWithMetadata(llvm::StringRef metadata) {
  auto le = [](std::string &out, uint64_t v, int bytes) {
    for (int i = 0; i < bytes; ++i)
      out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  };
  // Section data and the section after it start 64-byte aligned in the file
  // (the payload starts after the 32-byte header).
  auto pad = [](std::string &out) {
    out.append((64 - (32 + out.size()) % 64) % 64, '\0');
  };
  std::string payload;
  le(payload, static_cast<uint32_t>(SectionKind::Metadata), 4);
  le(payload, 8, 4);
  le(payload, metadata.size(), 8);
  payload += "metadata";
  pad(payload);
  payload += metadata.str();
  pad(payload);
  std::string header = "INT21ENG";
  le(header, kEngineFormatVersion, 4);
  le(header, 1, 4);
  le(header, payload.size(), 8);
  le(header, llvm::xxh3_64bits(payload), 8);
  return header + payload;
}

TEST(EngineFileTest, ReadsMetadataItWritesByHand) {
  std::string error = errorOf(readBytes(engineWithMetadata(
      R"({"target": "cpu:x", "compiler_version": "v", "inputs": [], )"
      R"("outputs": [{"name": "y", "dtype": "float32", "shape": [2]}]})")));
  EXPECT_EQ(error, "");
}

// Metadata nested deeper than int21 writes it is refused before the JSON
// parser recurses into it (100000 levels overflowed its stack).
TEST(EngineFileTest, RefusesDeeplyNestedMetadata) {
  std::string metadata = R"({"target": "cpu:x", "x": )" +
                         std::string(100000, '[') + std::string(100000, ']') +
                         "}";
  std::string error = errorOf(readBytes(engineWithMetadata(metadata)));
  EXPECT_NE(error.find("metadata nests deeper than 16 levels"),
            std::string::npos)
      << error;
  // Brackets inside strings are text, not nesting.
  std::string quoted = R"({"target": "cpu:x", "compiler_version": ")" +
                       std::string(1000, '[') +
                       R"(", "inputs": [], "outputs": []})";
  EXPECT_EQ(errorOf(readBytes(engineWithMetadata(quoted))), "");
}

TEST(EngineFileTest, RefusesTensorsTooLargeToAllocate) {
  std::string error = errorOf(readBytes(engineWithMetadata(
      R"({"target": "cpu:x", "compiler_version": "v", "inputs": [], )"
      R"("outputs": [{"name": "y", "dtype": "float32", )"
      R"("shape": [2147483648, 2147483648]}]})")));
  EXPECT_NE(error.find("the shape of 'y' describes more than 2^40 bytes"),
            std::string::npos)
      << error;
  error = errorOf(readBytes(engineWithMetadata(
      R"({"target": "cpu:x", "compiler_version": "v", "inputs": [], )"
      R"("outputs": [], "workspace_size": 4611686018427387904})")));
  EXPECT_NE(error.find("workspace_size of 4611686018427387904 bytes"),
            std::string::npos)
      << error;
}

TEST(EngineFileTest, IndexBoundsRoundTripAndAreChecked) {
  EngineMetadata meta = sampleMetadata();
  meta.inputs.push_back(
      {"ids", DType::I64, {3}, {{-5, 4, "'embed' (Gather)"}}});
  std::string bytes;
  llvm::raw_string_ostream os(bytes);
  writeEngineFile(meta, {}, os);
  os.flush();
  llvm::Expected<EngineFile> file = readBytes(bytes);
  ASSERT_TRUE(bool(file)) << llvm::toString(file.takeError());
  ASSERT_EQ(file->metadata().inputs, meta.inputs);

  const TensorSpec &ids = file->metadata().inputs.back();
  int64_t inside[] = {-5, 0, 4};
  EXPECT_EQ(checkIndexBounds(ids, inside), "");
  int64_t outside[] = {0, 5, 1};
  EXPECT_EQ(checkIndexBounds(ids, outside),
            "input 'ids' holds 5 at element 1, outside [-5, 4], the indices "
            "node 'embed' (Gather) takes");
  TensorSpec narrow{"i", DType::I32, {2}, {{0, 1, "'g' (GatherElements)"}}};
  int32_t low[] = {0, -1};
  EXPECT_NE(checkIndexBounds(narrow, low).find("holds -1 at element 1"),
            std::string::npos);

  // Bounds on a float tensor, or with min > max, are refused when read.
  std::string error = errorOf(readBytes(engineWithMetadata(
      R"({"target": "cpu:x", "compiler_version": "v", "outputs": [], )"
      R"("inputs": [{"name": "x", "dtype": "float32", "shape": [2], )"
      R"("index_bounds": [{"min": 0, "max": 1, "node": "n"}]}]})")));
  EXPECT_NE(error.find("'index_bounds' of 'x' must be a list, on an i32 or "
                       "i64 tensor"),
            std::string::npos)
      << error;
  error = errorOf(readBytes(engineWithMetadata(
      R"({"target": "cpu:x", "compiler_version": "v", "outputs": [], )"
      R"("inputs": [{"name": "x", "dtype": "int64", "shape": [2], )"
      R"("index_bounds": [{"min": 3, "max": 1, "node": "n"}]}]})")));
  EXPECT_NE(error.find("an index bound of 'x' needs integers min <= max"),
            std::string::npos)
      << error;
}

TEST(EngineFileTest, DynamicExtentsRoundTrip) {
  EngineMetadata meta = sampleMetadata();
  meta.inputs.push_back({"tokens",
                         DType::I64,
                         {TensorSpec::kDynamicExtent, 16,
                          TensorSpec::kDynamicExtent},
                         {},
                         {"batch", "", ""}});
  meta.outputs.push_back(
      {"scores", DType::F32, {TensorSpec::kDynamicExtent, 2}, {}, {"", ""}});
  meta.numExtents = 3;
  std::string bytes;
  llvm::raw_string_ostream os(bytes);
  writeEngineFile(meta, {}, os);
  os.flush();
  // Named extents are written by name, unnamed ones as "?".
  EXPECT_NE(bytes.find(R"("shape":["batch",16,"?"])"), std::string::npos);
  llvm::Expected<EngineFile> file = readBytes(bytes);
  ASSERT_TRUE(bool(file)) << llvm::toString(file.takeError());
  EXPECT_EQ(file->metadata().inputs, meta.inputs);
  EXPECT_EQ(file->metadata().outputs, meta.outputs);
  EXPECT_EQ(file->metadata().numExtents, 3u);
  EXPECT_TRUE(file->metadata().inputs.back().isDynamic());
  EXPECT_NE(abiDescriptor(file->metadata()).find("[?x16x?]"),
            std::string::npos);
  EXPECT_NE(abiDescriptor(file->metadata()).find("extents: 3"),
            std::string::npos);

  // The extents count must match the tensors' dynamic dimensions.
  std::string error = errorOf(readBytes(engineWithMetadata(
      R"({"target": "cpu:x", "compiler_version": "v", "outputs": [], )"
      R"("inputs": [{"name": "x", "dtype": "float32", "shape": ["n", 4]}], )"
      R"("extents": 2})")));
  EXPECT_NE(error.find("metadata has 2 extents, but its inputs and outputs "
                       "have 1 dynamic dimensions"),
            std::string::npos)
      << error;
  error = errorOf(readBytes(engineWithMetadata(
      R"({"target": "cpu:x", "compiler_version": "v", "outputs": [], )"
      R"("inputs": [{"name": "x", "dtype": "float32", "shape": ["", 4]}]})")));
  EXPECT_NE(error.find("empty dimension name in the shape of 'x'"),
            std::string::npos)
      << error;
}

TEST(EngineFileTest, OutputsSizedByTheRunRoundTrip) {
  EngineMetadata meta = sampleMetadata();
  meta.inputs.push_back(
      {"x", DType::F32, {TensorSpec::kDynamicExtent, 8}, {}, {"T", ""}});
  TensorSpec grown{"h", DType::F32, {TensorSpec::kDynamicExtent, 8}, {},
                   {"", ""}};
  grown.sizedByRun = true;
  meta.outputs.push_back(grown);
  meta.numExtents = 2;
  std::string bytes;
  llvm::raw_string_ostream os(bytes);
  writeEngineFile(meta, {}, os);
  os.flush();
  EXPECT_NE(bytes.find(R"("sized_by_run":true)"), std::string::npos);
  llvm::Expected<EngineFile> file = readBytes(bytes);
  ASSERT_TRUE(bool(file)) << llvm::toString(file.takeError());
  EXPECT_EQ(file->metadata().outputs, meta.outputs);
  EXPECT_TRUE(file->metadata().outputs.back().sizedByRun);
  // The code's contract says which outputs the run allocates.
  EXPECT_NE(abiDescriptor(file->metadata()).find("[?runx8]"),
            std::string::npos);

  // Only an output of dynamic shape can be sized by the run.
  std::string error = errorOf(readBytes(engineWithMetadata(
      R"({"target": "cpu:x", "compiler_version": "v", "outputs": [], )"
      R"("inputs": [{"name": "x", "dtype": "float32", "shape": ["n", 4], )"
      R"("sized_by_run": true}], "extents": 1})")));
  EXPECT_NE(error.find("'sized_by_run' of 'x' must be a boolean, true on an "
                       "output of dynamic shape only"),
            std::string::npos)
      << error;
  error = errorOf(readBytes(engineWithMetadata(
      R"({"target": "cpu:x", "compiler_version": "v", "inputs": [], )"
      R"("outputs": [{"name": "y", "dtype": "float32", "shape": [4], )"
      R"("sized_by_run": true}]})")));
  EXPECT_NE(error.find("'sized_by_run' of 'y' must be a boolean"),
            std::string::npos)
      << error;
}

TEST(EngineFileTest, ProfilesAndSpecializationsRoundTrip) {
  EngineMetadata meta = sampleMetadata();
  meta.inputs.push_back({"image",
                         DType::F32,
                         {TensorSpec::kDynamicExtent, 3,
                          TensorSpec::kDynamicExtent},
                         {},
                         {"batch", "", "width"}});
  TensorSpec &image = meta.inputs.back();
  image.profileMin = {1, 3, 32};
  image.profileOpt = {2, 3, 64};
  image.profileMax = {8, 3, 512};
  meta.outputs.push_back(
      {"scores", DType::F32, {TensorSpec::kDynamicExtent, 2}, {}, {"", ""}});
  meta.numExtents = 3;
  // The code for the opt shape: static shapes, weights of its own.
  EngineMetadata opt;
  opt.inputs = meta.inputs;
  opt.inputs.back().shape = {2, 3, 64};
  opt.inputs.back().dimNames.clear();
  opt.inputs.back().profileMin.clear();
  opt.inputs.back().profileOpt.clear();
  opt.inputs.back().profileMax.clear();
  opt.outputs = meta.outputs;
  opt.outputs.back().shape = {2, 2};
  opt.outputs.back().dimNames.clear();
  opt.weights = {{"packed", 0, 64}, {"w", 128, 16}};
  opt.workspaceSize = 4096;
  meta.specializations.push_back({"cpu.1.so", opt});
  std::string bytes;
  llvm::raw_string_ostream os(bytes);
  writeEngineFile(meta, {}, os);
  os.flush();
  llvm::Expected<EngineFile> file = readBytes(bytes);
  ASSERT_TRUE(bool(file)) << llvm::toString(file.takeError());
  EXPECT_EQ(file->metadata().inputs, meta.inputs);
  ASSERT_EQ(file->metadata().specializations.size(), 1u);
  const EngineSpecialization &read = file->metadata().specializations[0];
  EXPECT_EQ(read.code, "cpu.1.so");
  EXPECT_EQ(read.metadata.inputs, opt.inputs);
  EXPECT_EQ(read.metadata.outputs, opt.outputs);
  EXPECT_EQ(read.metadata.weights, opt.weights);
  EXPECT_EQ(read.metadata.workspaceSize, 4096u);
  // The code's contract names sizes, not places in the weights section.
  EXPECT_EQ(abiDescriptor(read.metadata).find("offset"), std::string::npos);

  // Each refusal names what is wrong.
  auto refusal = [&](const EngineMetadata &edited) {
    std::string out;
    llvm::raw_string_ostream edit(out);
    writeEngineFile(edited, {}, edit);
    edit.flush();
    return errorOf(readBytes(out));
  };
  EngineMetadata edited = meta;
  edited.inputs.back().profileOpt[2] = 1024;
  EXPECT_NE(refusal(edited).find("the profile of 'image' does not hold min <= "
                                 "opt <= max within its shape at dimension 2"),
            std::string::npos)
      << refusal(edited);
  edited = meta;
  edited.inputs.back().profileMin[1] = 1;
  EXPECT_NE(refusal(edited).find("at dimension 1"), std::string::npos)
      << refusal(edited);
  edited = meta;
  edited.specializations[0].metadata.inputs.back().shape[2] = 600;
  EXPECT_NE(refusal(edited).find("specialisation 0 gives input 'image' extent "
                                 "600 at dimension 2, outside the engine's "
                                 "shape or profile"),
            std::string::npos)
      << refusal(edited);
  edited = meta;
  edited.specializations[0].metadata.outputs.back().name = "other";
  EXPECT_NE(refusal(edited).find("specialisation 0 describes output 'other' "
                                 "otherwise than the engine does"),
            std::string::npos)
      << refusal(edited);
  edited = meta;
  edited.specializations[0].code.clear();
  EXPECT_NE(refusal(edited).find("specialisation 0 needs the name of its code "
                                 "section"),
            std::string::npos)
      << refusal(edited);
  // Only a dynamic engine has specialisations.
  std::string error = errorOf(readBytes(engineWithMetadata(
      R"({"target": "cpu:x", "compiler_version": "v", "outputs": [], )"
      R"("inputs": [], "specializations": []})")));
  EXPECT_NE(error.find("'specializations' must be a list, in an engine with "
                       "dynamic extents"),
            std::string::npos)
      << error;
}

TEST(EngineFileTest, IndexChecksRoundTripAndAreChecked) {
  EngineMetadata meta = sampleMetadata();
  meta.checks.push_back(
      {"index_check_0", DType::I64, {2}, {{-3, 2, "'rows' (Gather)"}}});
  std::string bytes;
  llvm::raw_string_ostream os(bytes);
  writeEngineFile(meta, {}, os);
  os.flush();
  llvm::Expected<EngineFile> file = readBytes(bytes);
  ASSERT_TRUE(bool(file)) << llvm::toString(file.takeError());
  EXPECT_EQ(file->metadata().checks, meta.checks);
  EXPECT_EQ(file->metadata().outputs, meta.outputs);
  // The code writes the checks after the outputs; the ABI says so.
  ASSERT_EQ(meta.numResultBuffers(), meta.outputs.size() + 1);
  EXPECT_EQ(&meta.resultBuffer(meta.outputs.size()), &meta.checks[0]);
  EXPECT_NE(abiDescriptor(meta).find("check 0: int64 [2]\nworkspace"),
            std::string::npos)
      << abiDescriptor(meta);
  EngineMetadata without = meta;
  without.checks.clear();
  EXPECT_EQ(abiMismatch(abiDescriptor(meta), abiDescriptor(without)),
            "the code takes check 0 (int64 [2]), the metadata describes "
            "workspace there");

  // [least, greatest] of the computed indices.
  const TensorSpec &check = file->metadata().checks[0];
  int64_t inside[] = {-3, 2};
  EXPECT_EQ(checkComputedIndices(check, inside), "");
  int64_t high[] = {0, 3};
  EXPECT_EQ(checkComputedIndices(check, high),
            "node 'rows' (Gather) computed the index 3, outside [-3, 2]");
  int64_t low[] = {-4, 0};
  EXPECT_NE(checkComputedIndices(check, low).find("the index -4"),
            std::string::npos);

  // A check that is not [2] or has no bounds is refused when read.
  for (const char *wrong :
       {R"("checks": [{"name": "c", "dtype": "int64", "shape": [3], )"
        R"("index_bounds": [{"min": 0, "max": 1, "node": "n"}]}]})",
        R"("checks": [{"name": "c", "dtype": "int64", "shape": [2]}]})"}) {
    std::string error = errorOf(readBytes(engineWithMetadata(
        std::string(R"({"target": "cpu:x", "compiler_version": "v", )"
                    R"("inputs": [], "outputs": [], )") +
        wrong)));
    EXPECT_NE(error.find("check 'c' must be an i32 or i64 tensor of shape "
                         "[2] with index_bounds"),
              std::string::npos)
        << error;
  }
}

TEST(EngineFileTest, RandomIndicesStayWithinTheirBounds) {
  // Random inputs (the search's, int21-run's) must pass the engine's own
  // input check: integers a node indexes with stay within its bounds.
  TensorSpec ids{"ids", DType::I64, {256}, {{-3, 2, "'rows' (Gather)"}}};
  TensorSpec narrow{"pos", DType::I32, {256}, {{-1, 0, "'p' (Gather)"}}};
  std::mt19937_64 rng(21);
  Tensor a = randomTensor(ids, rng), b = randomTensor(narrow, rng);
  EXPECT_EQ(checkIndexBounds(ids, a.data()), "");
  EXPECT_EQ(checkIndexBounds(narrow, b.data()), "");
  bool sawTwo = false;
  for (int64_t i = 0; i < 256; ++i)
    sawTwo |= static_cast<const int64_t *>(a.data())[i] == 2;
  EXPECT_TRUE(sawTwo) << "the draws should span [0, 2]";
}

TEST(EngineFileTest, OpenReportsAMissingFile) {
  std::string error =
      errorOf(EngineFile::open("/nonexistent/dir/model.int21"));
  EXPECT_NE(error.find("/nonexistent/dir/model.int21: cannot read"),
            std::string::npos)
      << error;
}

} // namespace
