//===- SearchTest.cpp - kernels, schedule spaces, the blackboard, agents --===//

#include "int21/AgentSearch/Agent.h"
#include "int21/AgentSearch/Bandit.h"
#include "int21/AgentSearch/Kernel.h"
#include "int21/AgentSearch/Measure.h"
#include "int21/AgentSearch/Tuner.h"
#include "int21/Compiler/Compiler.h"
#include "int21/Dialect/Int21/Int21Dialect.h"
#include "int21/Dialect/Int21/Int21Ops.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cmath>

using namespace int21::search;
namespace schedule = int21::schedule;

namespace {

// Two identical matmul groups (one kernel, two instances) and an
// elementwise one.
constexpr const char *kModule = R"mlir(
func.func @main(%a: tensor<64x128xf32>, %b: tensor<128x256xf32>, %c: tensor<64x256xf32>) -> tensor<64x256xf32> {
  %0 = int21.fusion_group {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<64x256xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x256xf32>) -> tensor<64x256xf32>
    %m = linalg.matmul ins(%a, %b : tensor<64x128xf32>, tensor<128x256xf32>) outs(%f : tensor<64x256xf32>) -> tensor<64x256xf32>
    int21.yield %m : tensor<64x256xf32>
  } : tensor<64x256xf32>
  %1 = int21.fusion_group schedule(#int21.schedule<@cpu.matmul, {reg_n = 16 : i64}>) {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<64x256xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x256xf32>) -> tensor<64x256xf32>
    %m = linalg.matmul ins(%a, %b : tensor<64x128xf32>, tensor<128x256xf32>) outs(%f : tensor<64x256xf32>) -> tensor<64x256xf32>
    int21.yield %m : tensor<64x256xf32>
  } : tensor<64x256xf32>
  %2 = int21.fusion_group {
    %e = tensor.empty() : tensor<64x256xf32>
    %s = linalg.add ins(%0, %1 : tensor<64x256xf32>, tensor<64x256xf32>) outs(%e : tensor<64x256xf32>) -> tensor<64x256xf32>
    int21.yield %s : tensor<64x256xf32>
  } : tensor<64x256xf32>
  return %2 : tensor<64x256xf32>
}
)mlir";

class SearchTest : public ::testing::Test {
protected:
  void SetUp() override {
    mlir::DialectRegistry registry;
    int21::registerCompilerDialects(registry);
    context = std::make_unique<mlir::MLIRContext>(registry);
    context->loadDialect<int21::Int21Dialect, mlir::func::FuncDialect>();
    module = mlir::parseSourceString<mlir::ModuleOp>(kModule, context.get());
    ASSERT_TRUE(module);
    ASSERT_TRUE(mlir::succeeded(schedule::prepareForScheduling(*module)));
    kernels = extractKernels(*module);
  }

  const Kernel &matmul() const { return kernels.front(); }

  std::unique_ptr<mlir::MLIRContext> context;
  mlir::OwningOpRef<mlir::ModuleOp> module;
  std::vector<Kernel> kernels;
};

TEST_F(SearchTest, EqualGroupsAreOneKernel) {
  ASSERT_EQ(kernels.size(), 2u);
  // The second matmul's schedule does not change its signature.
  EXPECT_EQ(matmul().instances, 2u);
  EXPECT_EQ(kernels[1].instances, 1u);
  EXPECT_NE(matmul().signature, kernels[1].signature);
  EXPECT_EQ(matmul().name, "matmul 64x256x128");
  EXPECT_DOUBLE_EQ(matmul().flops, 2.0 * 64 * 256 * 128 + 64 * 256);
  EXPECT_DOUBLE_EQ(matmul().bytes, 4.0 * (64 * 128 + 128 * 256 + 64 * 256));
}

TEST_F(SearchTest, DomainsComeFromTheWork) {
  const schedule::ScheduleChoice *choice = matmul().findChoice("cpu.matmul");
  ASSERT_NE(choice, nullptr);
  EXPECT_EQ(matmul().choices.front().sequence, "cpu.matmul");
  EXPECT_EQ(choice->dims, (llvm::SmallVector<int64_t>{64, 256, 128}));
  for (const schedule::KnobDomain &domain : choice->domains) {
    ASSERT_FALSE(domain.options.empty()) << domain.name;
    EXPECT_TRUE(std::is_sorted(domain.options.begin(), domain.options.end()));
    // Every default lies in its domain.
    EXPECT_TRUE(llvm::is_contained(domain.options,
                                   choice->defaults.lookup(domain.name)))
        << domain.name;
    if (domain.name == "cache_k") {
      for (int64_t k : domain.options)
        EXPECT_EQ(128 % k, 0) << "cache_k " << k << " does not divide K";
    }
    if (domain.name == "par_m") {
      EXPECT_EQ(domain.options.back(), 64);
    }
  }
}

TEST_F(SearchTest, ImplausibleSchedulesAreRejected) {
  const schedule::ScheduleChoice &choice = *matmul().findChoice("cpu.matmul");
  Schedule schedule = defaultSchedule(choice);
  std::string why;
  EXPECT_TRUE(isValidSchedule(matmul(), schedule, why)) << why;

  Schedule tooWide = schedule;
  tooWide.knobs["reg_m"] = 16;
  tooWide.knobs["par_m"] = 8;
  EXPECT_FALSE(isValidSchedule(matmul(), tooWide, why));
  EXPECT_NE(why.find("reg_m"), std::string::npos) << why;

  Schedule outside = schedule;
  outside.knobs["cache_k"] = 100;
  EXPECT_FALSE(isValidSchedule(matmul(), outside, why));
  EXPECT_EQ(why.rfind("knob 'cache_k' of template @cpu.matmul = 100 is outside "
                     "its domain for this work [",
                     0),
            0u)
      << why;

  Schedule unknown = schedule;
  unknown.knobs["unroll_everything"] = 1;
  EXPECT_FALSE(isValidSchedule(matmul(), unknown, why));

  Schedule otherTemplate = schedule;
  otherTemplate.sequence = "cpu.conv2d_nchw";
  EXPECT_FALSE(isValidSchedule(matmul(), otherTemplate, why));
}

TEST_F(SearchTest, HashesAreCanonical) {
  Schedule a = defaultSchedule(matmul().choices.front());
  Schedule b = a;
  EXPECT_EQ(scheduleHash(matmul().signature, a),
            scheduleHash(matmul().signature, b));
  b.knobs["reg_n"] = a.knobs["reg_n"] == 16 ? 32 : 16;
  EXPECT_NE(scheduleHash(matmul().signature, a),
            scheduleHash(matmul().signature, b));
  // The same schedule for other work is another candidate.
  EXPECT_NE(scheduleHash(matmul().signature, a),
            scheduleHash(kernels[1].signature, a));
}

TEST_F(SearchTest, SchedulesGoToEveryGroupOfTheKernel) {
  Schedule schedule = defaultSchedule(matmul().choices.front());
  schedule.knobs["reg_n"] = 8;
  EXPECT_EQ(applySchedules(*module, {{matmul().signature, schedule}}), 2u);
  unsigned withReg8 = 0;
  module->walk([&](int21::FusionGroupOp group) {
    if (auto attr = group.getScheduleAttr())
      if (attr.getIntKnob("reg_n") == 8)
        ++withReg8;
  });
  EXPECT_EQ(withReg8, 2u);
}

/// A trial of `schedule` with a synthetic time.
Trial fakeTrial(unsigned kernel, const Schedule &schedule, double ms,
                bool isDefault = false) {
  Trial trial;
  trial.candidate.kernel = kernel;
  trial.candidate.schedule = schedule;
  trial.candidate.agent = isDefault ? "default" : "test";
  trial.hash = scheduleHash("k" + std::to_string(kernel), schedule);
  trial.outcome = Outcome::Ok;
  trial.time.medianMs = ms;
  trial.isDefault = isDefault;
  return trial;
}

TEST_F(SearchTest, BlackboardTracksBestAndDefault) {
  Blackboard board(kernels);
  Schedule base = defaultSchedule(matmul().choices.front());
  board.record(fakeTrial(0, base, 2.0, /*isDefault=*/true));
  Schedule faster = base;
  faster.knobs["reg_n"] = 16;
  Trial wrong = fakeTrial(0, faster, 0.1);
  wrong.outcome = Outcome::Wrong;
  board.record(wrong);
  EXPECT_EQ(board.best(0)->time.medianMs, 2.0) << "a wrong trial never wins";
  faster.knobs["reg_n"] = 8;
  board.record(fakeTrial(0, faster, 1.5));
  EXPECT_EQ(board.best(0)->time.medianMs, 1.5);
  EXPECT_TRUE(board.defaultTrial(0)->isDefault);
  EXPECT_EQ(board.trialsOf(0).size(), 3u);
  EXPECT_EQ(board.best(1), nullptr);
}

/// Every built-in agent proposes valid, untried candidates for the kernel,
/// the same ones for the same seed.
TEST_F(SearchTest, AgentsProposeValidNewCandidates) {
  for (llvm::StringRef name : {"random", "tiling", "cost-model"}) {
    Blackboard board(kernels);
    Schedule base = defaultSchedule(matmul().choices.front());
    board.record(fakeTrial(0, base, 2.0, /*isDefault=*/true));
    std::unique_ptr<Agent> agent = createBuiltinAgent(name, 7);
    std::unique_ptr<Agent> twin = createBuiltinAgent(name, 7);
    ASSERT_TRUE(agent && twin) << name.str();
    std::vector<Candidate> proposed = agent->propose(board, 0, 6);
    std::vector<Candidate> again = twin->propose(board, 0, 6);
    ASSERT_FALSE(proposed.empty()) << name.str();
    ASSERT_EQ(proposed.size(), again.size()) << name.str();
    for (size_t i = 0; i < proposed.size(); ++i) {
      const Candidate &c = proposed[i];
      std::string why;
      EXPECT_TRUE(isValidSchedule(matmul(), c.schedule, why))
          << name.str() << ": " << describe(c.schedule) << ": " << why;
      EXPECT_FALSE(board.tried(scheduleHash(matmul().signature, c.schedule)));
      EXPECT_EQ(c.agent, name.str());
      EXPECT_EQ(describe(c.schedule), describe(again[i].schedule))
          << name.str() << " is not deterministic for a seed";
    }
  }
  EXPECT_EQ(createBuiltinAgent("oracle", 1), nullptr);
}

/// The registry: every built-in agent builds under its own name and says of
/// itself what its entry says; the default team is built from it.
TEST_F(SearchTest, AgentRegistryBuildsEveryAgent) {
  ASSERT_FALSE(builtinAgents().empty());
  for (const BuiltinAgent &entry : builtinAgents()) {
    EXPECT_EQ(findBuiltinAgent(entry.name), &entry);
    EXPECT_FALSE(entry.description.empty()) << entry.name.str();
    std::unique_ptr<Agent> agent = createBuiltinAgent(entry.name, 3);
    ASSERT_TRUE(agent) << entry.name.str();
    EXPECT_EQ(agent->name(), entry.name);
    EXPECT_EQ(agent->seedsEachKernel(), entry.seedsEachKernel)
        << entry.name.str();
    EXPECT_TRUE(builtinAgentNames().find(entry.name.str()) !=
                std::string::npos);
  }
  EXPECT_EQ(findBuiltinAgent("oracle"), nullptr);

  std::vector<std::string> team = defaultTeam(/*withKnowledge=*/false);
  std::vector<std::string> withKnowledge = defaultTeam(true);
  ASSERT_FALSE(team.empty());
  EXPECT_EQ(withKnowledge.size(), team.size() + 1);
  for (const std::string &name : team) {
    const BuiltinAgent *entry = findBuiltinAgent(name);
    ASSERT_TRUE(entry) << name;
    EXPECT_TRUE(entry->inDefaultTeam && !entry->needsKnowledgeBase) << name;
  }
  // What won before leads the team: its first proposal seeds each kernel.
  const BuiltinAgent *first = findBuiltinAgent(withKnowledge.front());
  ASSERT_TRUE(first);
  EXPECT_TRUE(first->needsKnowledgeBase && first->seedsEachKernel);
  EXPECT_TRUE(std::equal(team.begin(), team.end(), withKnowledge.begin() + 1));
}

/// A search with an unknown agent stops before any trial with an error that
/// lists the agents it knows.
TEST_F(SearchTest, UnknownAgentErrorListsTheKnownOnes) {
  TuneOptions options;
  options.agents = {"tiling", "oracle"};
  std::string progress;
  llvm::raw_string_ostream os(progress);
  llvm::Expected<TuneResult> result = tuneModule(*module, options, os);
  ASSERT_FALSE(result);
  std::string error = llvm::toString(result.takeError());
  EXPECT_NE(error.find("unknown agent 'oracle'"), std::string::npos) << error;
  for (const BuiltinAgent &entry : builtinAgents())
    EXPECT_NE(error.find(entry.name.str()), std::string::npos) << error;
  EXPECT_TRUE(progress.empty()) << progress;

  options.agents = {"knowledge"};
  result = tuneModule(*module, options, os);
  ASSERT_FALSE(result);
  EXPECT_EQ(llvm::toString(result.takeError()),
            "the knowledge agent needs a knowledge base (--kb)");
}

/// Records trials of random schedules of `choice` on kernel 0 of `board`,
/// timed by `synthetic`, until the board holds `total` trials; returns the
/// mean register-tile width of those schedules.
double recordRandomTrials(Blackboard &board, const Kernel &kernel,
                          const schedule::ScheduleChoice &choice,
                          double (*synthetic)(const Schedule &), size_t total) {
  std::mt19937_64 rng(3);
  double sum = 0;
  unsigned count = 0;
  while (board.trials().size() < total) {
    Schedule s = randomSchedule(choice, rng);
    std::string why;
    if (!isValidSchedule(kernel, s, why) || board.tried(scheduleHash("k0", s)))
      continue;
    board.record(fakeTrial(0, s, synthetic(s)));
    sum += s.knobs["reg_n"];
    ++count;
  }
  return sum / count;
}

/// The mean register-tile width of `proposed`.
double meanRegN(const std::vector<Candidate> &proposed) {
  double sum = 0;
  for (const Candidate &c : proposed)
    sum += c.schedule.knobs.at("reg_n");
  return sum / proposed.size();
}

// The cost model learns from the measurements: with times that fall as the
// register tile widens, it proposes wide register tiles.
TEST_F(SearchTest, CostModelFollowsTheMeasurements) {
  Blackboard board(kernels);
  const schedule::ScheduleChoice &choice = *matmul().findChoice("cpu.matmul");
  Schedule base = defaultSchedule(choice);
  auto synthetic = [](const Schedule &s) {
    return 10.0 / s.knobs.at("reg_n");
  };
  board.record(fakeTrial(0, base, synthetic(base), /*isDefault=*/true));
  double measured = recordRandomTrials(board, matmul(), choice, synthetic, 24);
  std::unique_ptr<Agent> agent = createCostModelAgent(5);
  std::vector<Candidate> proposed = agent->propose(board, 0, 4);
  ASSERT_EQ(proposed.size(), 4u);
  EXPECT_GT(meanRegN(proposed), measured);
}

/// `kernel` again under another signature: other work of the same shape
/// class, for what one kernel's trials teach about another.
Kernel renamed(Kernel kernel, llvm::StringRef signature) {
  kernel.signature = signature.str();
  return kernel;
}

// What the cost model learned on one kernel ranks the proposals for another
// kernel of the same template before that one has measurements of its own.
TEST_F(SearchTest, CostModelTransfersAcrossKernels) {
  Blackboard board({matmul(), renamed(matmul(), "other")});
  const schedule::ScheduleChoice &choice = *matmul().findChoice("cpu.matmul");
  Schedule base = defaultSchedule(choice);
  // Narrow register tiles win here: the default (a wide one) is far away.
  auto synthetic = [](const Schedule &s) {
    return 0.1 * s.knobs.at("reg_n");
  };
  board.record(fakeTrial(0, base, synthetic(base), /*isDefault=*/true));
  board.record(fakeTrial(1, base, synthetic(base), /*isDefault=*/true));
  double measured = recordRandomTrials(board, matmul(), choice, synthetic, 26);
  std::unique_ptr<Agent> agent = createCostModelAgent(5);
  std::vector<Candidate> proposed = agent->propose(board, 1, 4);
  ASSERT_EQ(proposed.size(), 4u);
  for (const Candidate &c : proposed)
    EXPECT_EQ(c.kernel, 1u);
  EXPECT_LT(meanRegN(proposed), measured);
}

// The tiling agent brings the winner of the most similar kernel over before
// breeding its own; a "winner" within timing noise of its default stays.
TEST_F(SearchTest, TilingAgentBringsInWinnersOfSimilarKernels) {
  const schedule::ScheduleChoice &choice = *matmul().findChoice("cpu.matmul");
  Schedule base = defaultSchedule(choice);
  // A winner three knobs away: no mutation of the default reaches it.
  Schedule winner = base;
  std::mt19937_64 rng(11);
  std::string why;
  auto differences = [&](const Schedule &s) {
    return llvm::count_if(s.knobs, [&](const auto &knob) {
      return base.knobs.at(knob.first) != knob.second;
    });
  };
  while (differences(winner) < 3 || !isValidSchedule(matmul(), winner, why))
    winner = randomSchedule(choice, rng);

  for (double time : {0.5, 0.995}) {
    Blackboard board({matmul(), renamed(matmul(), "other")});
    board.record(fakeTrial(0, base, 1.0, /*isDefault=*/true));
    board.record(fakeTrial(1, base, 1.0, /*isDefault=*/true));
    unsigned winnerId = board.record(fakeTrial(0, winner, time)).id;
    std::unique_ptr<Agent> agent = createTilingAgent(1);
    std::vector<Candidate> proposed = agent->propose(board, 1, 3);
    ASSERT_FALSE(proposed.empty());
    bool migrated = proposed.front().schedule.knobs == winner.knobs;
    EXPECT_EQ(migrated, time == 0.5) << describe(proposed.front().schedule);
    if (migrated) {
      EXPECT_EQ(proposed.front().kernel, 1u);
      EXPECT_EQ(proposed.front().parent, std::optional<unsigned>(winnerId));
      // Once tried on this kernel, it is not proposed again.
      Trial tried = fakeTrial(1, winner, 0.6);
      tried.hash = scheduleHash("other", winner);
      board.record(tried);
      for (const Candidate &c : createTilingAgent(1)->propose(board, 1, 3))
        EXPECT_NE(c.schedule.knobs, winner.knobs);
    }
  }
}

// The pipeline agent tries the kernel's other templates; a switch that lost
// badly on one kernel is not proposed for the next.
TEST_F(SearchTest, PipelineAgentTriesTemplatesAndRemembersLosses) {
  ASSERT_GE(matmul().choices.size(), 2u);
  const schedule::ScheduleChoice &fallback = matmul().choices[1];
  Blackboard board({matmul(), renamed(matmul(), "other")});
  Schedule base = defaultSchedule(matmul().choices.front());
  const Trial &first =
      board.record(fakeTrial(0, base, 1.0, /*isDefault=*/true));
  unsigned firstId = first.id;
  board.record(fakeTrial(1, base, 1.0, /*isDefault=*/true));

  std::unique_ptr<Agent> agent = createPipelineAgent(1);
  auto switches = [&](unsigned kernel) {
    std::vector<Candidate> proposed = agent->propose(board, kernel, 16);
    return llvm::count_if(proposed, [&](const Candidate &c) {
      return c.schedule.sequence == fallback.sequence;
    });
  };
  EXPECT_EQ(switches(0), 1);

  Trial slow = fakeTrial(0, defaultSchedule(fallback), 100.0);
  slow.candidate.agent = "pipeline";
  slow.candidate.parent = firstId;
  agent->observe(board, board.record(slow));
  EXPECT_EQ(switches(0), 0) << "the template was tried on this kernel";
  EXPECT_EQ(switches(1), 0) << "the switch lost 100x on the other kernel";
}

// The coordinator's bandit: arms never played go first; after that an agent
// that never improves anything gets a small share even when the others'
// rewards are a few percent (with the exploration term at a fixed scale,
// it got a third).
TEST(BanditTest, AnAgentThatNeverWinsGetsFewTrials) {
  std::vector<ArmStats> arms(3);
  std::vector<double> first = upperConfidenceBounds(arms);
  EXPECT_GT(first[0], first[1]);
  EXPECT_GT(first[1], first[2]);

  std::mt19937_64 rng(1);
  std::uniform_real_distribution<double> roll(0, 1);
  for (int play = 0; play < 400; ++play) {
    std::vector<double> bounds = upperConfidenceBounds(arms);
    size_t arm = std::max_element(bounds.begin(), bounds.end()) - bounds.begin();
    double u = roll(rng);
    // Arm 0 never improves; arm 1 wins 3% one trial in five; arm 2 2% one
    // in four.
    double reward = arm == 1 ? (u < 0.2 ? 0.03 : 0)
                    : arm == 2 ? (u < 0.25 ? 0.02 : 0)
                               : 0;
    arms[arm].record(reward);
  }
  EXPECT_LT(arms[0].plays, 40) << "a tenth of the plays at most";
  EXPECT_GE(arms[0].plays, 3) << "still explored";
  EXPECT_EQ(arms[0].plays + arms[1].plays + arms[2].plays, 400);
}

// A winner timed again after the search is kept only when it runs
// correctly and faster than the default.
TEST(ConfirmTest, AWinnerIsKeptOnlyWhenItHoldsUp) {
  Trial again;
  again.outcome = Outcome::Ok;
  again.time.medianMs = 1.8;
  Confirmation kept = confirmWinner(again, 2.0);
  EXPECT_TRUE(kept.kept);
  EXPECT_DOUBLE_EQ(kept.ratio, 0.9);
  EXPECT_TRUE(kept.why.empty());

  again.time.medianMs = 2.02;
  Confirmation slower = confirmWinner(again, 2.0);
  EXPECT_FALSE(slower.kept);
  EXPECT_NE(slower.why.find("1.01x the default's time"), std::string::npos)
      << slower.why;

  again.outcome = Outcome::Wrong;
  again.error = "output 0: max error 3";
  Confirmation wrong = confirmWinner(again, 2.0);
  EXPECT_FALSE(wrong.kept);
  EXPECT_EQ(wrong.ratio, 0);
  EXPECT_NE(wrong.why.find("output 0: max error 3"), std::string::npos)
      << wrong.why;
}

TEST_F(SearchTest, ExternalAgentRepliesAreReadAsTheSearchReadsThem) {
  // Knobs over the template's defaults, at most `count` proposals.
  ProposeReply two = parseProposeReply(
      matmul(),
      R"({"candidates": [{"template": "cpu.matmul", "knobs": {"reg_n": 16}},
                         {"template": "cpu.matmul"}, {"template": "cpu.matmul"}]})",
      2);
  EXPECT_TRUE(two.unreadable.empty()) << two.unreadable;
  EXPECT_TRUE(two.outsideSpace.empty()) << two.outsideSpace;
  ASSERT_EQ(two.schedules.size(), 2u);
  EXPECT_EQ(two.schedules[0].knobs.at("reg_n"), 16);
  EXPECT_EQ(two.schedules[1].knobs,
            defaultSchedule(*matmul().findChoice("cpu.matmul")).knobs);

  // A reply nested 100k deep (it overflowed the parser's stack) or without
  // candidates drops the agent; a point outside the space stops the search.
  std::string deep = "{\"candidates\": " + std::string(100000, '[') +
                     std::string(100000, ']') + "}";
  EXPECT_NE(parseProposeReply(matmul(), deep, 1).unreadable.find("deeper"),
            std::string::npos);
  EXPECT_EQ(parseProposeReply(matmul(), "{}", 1).unreadable,
            "an answer without a 'candidates' array");
  ProposeReply outside = parseProposeReply(
      matmul(), R"({"candidates": [{"template": "cpu.matmul", "knobs": {"reg_n": 17}}]})",
      1);
  EXPECT_TRUE(outside.schedules.empty());
  EXPECT_NE(outside.outsideSpace.find("knob 'reg_n' of template @cpu.matmul"),
            std::string::npos)
      << outside.outsideSpace;
  EXPECT_NE(parseProposeReply(matmul(), R"({"candidates": [{"template": "cpu.nosuch"}]})", 1)
                .outsideSpace.find("cpu.nosuch"),
            std::string::npos);
}

TEST(MeasureTest, TolerancesFollowTheDtype) {
  using int21::runtime::DType;
  EXPECT_EQ(toleranceFor(DType::I32, 100).first, 0);
  EXPECT_EQ(toleranceFor(DType::Bool, 1).second, 0);
  EXPECT_LT(toleranceFor(DType::F32, 1).first,
            toleranceFor(DType::F16, 1).first);
  EXPECT_LT(toleranceFor(DType::F16, 1).first,
            toleranceFor(DType::BF16, 1).first);
  // The absolute part scales with the outputs.
  EXPECT_DOUBLE_EQ(toleranceFor(DType::F32, 1000).second,
                   1000 * toleranceFor(DType::F32, 1).second);
}

} // namespace

// The report names each kernel's class from its default template and the
// shape that sets the class apart.
TEST(KernelClass, NamesTheTemplatesWork) {
  auto classOf = [](llvm::StringRef sequence,
                    llvm::SmallVector<int64_t> dims) {
    int21::schedule::ScheduleChoice choice;
    choice.sequence = sequence.str();
    choice.dims = dims;
    return int21::search::kernelClass(choice);
  };
  EXPECT_EQ(classOf("cpu.matmul", {128, 768, 768}), "matmul");
  EXPECT_EQ(classOf("cpu.matmul", {1, 1000, 1280}), "skinny matmul (M=1)");
  EXPECT_EQ(classOf("gpu.batch_matmul", {64, 64, 32}), "batched matmul");
  EXPECT_EQ(classOf("cpu.matmul_transposed", {320, 49, 960}),
            "matmul, transposed (filters along vectors)");
  EXPECT_EQ(classOf("cpu.matmul_panels", {128, 2048, 512}),
            "matmul, constant weight in panels");
  EXPECT_EQ(classOf("cpu.matmul_panels_transposed", {1152, 49, 192}),
            "matmul, transposed, weight in panels (filters along vectors)");
  // f, oh, ow, c*kh*kw, c, ih, iw, stride_h, stride_w.
  EXPECT_EQ(classOf("cpu.conv2d_nchw", {64, 56, 56, 576, 64, 58, 58, 1, 1}),
            "convolution 3x3");
  EXPECT_EQ(classOf("cpu.conv2d_nchw", {64, 112, 112, 147, 3, 230, 230, 2, 2}),
            "convolution 7x7 stride 2");
  EXPECT_EQ(classOf("cpu.depthwise_conv2d_nchw", {32, 112, 112, 114, 114}),
            "depthwise convolution or pooling");
  EXPECT_EQ(classOf("cpu.conv2d_filter_lanes", {64, 28, 28, 32, 3, 3, 30, 30}),
            "convolution 3x3 (filters along vectors)");
  EXPECT_EQ(classOf("cpu.depthwise_channel_lanes",
                    {1152, 7, 7, 5, 5, 11, 11, 16}),
            "depthwise convolution 5x5 (channels along vectors)");
  EXPECT_EQ(classOf("cpu.elementwise_2d", {64, 256}), "elementwise");
  EXPECT_EQ(classOf("cpu.outer_forall_1d", {64}),
            "other (reductions, data movement)");
}
