//===- Blackboard.cpp - candidates, trials and the shared blackboard ------===//

#include "int21/AgentSearch/Blackboard.h"

#include "llvm/Support/xxhash.h"

using namespace int21::search;
namespace schedule = int21::schedule;

uint64_t int21::search::scheduleHash(llvm::StringRef signature,
                                     const Schedule &schedule) {
  // std::map iterates in key order: the text is canonical.
  std::string text = signature.str() + "|" + describe(schedule);
  return llvm::xxh3_64bits(llvm::ArrayRef<uint8_t>(
      reinterpret_cast<const uint8_t *>(text.data()), text.size()));
}

std::string int21::search::describe(const Schedule &schedule) {
  std::string text = schedule.sequence + "{";
  bool first = true;
  for (const auto &[name, value] : schedule.knobs) {
    text += (first ? "" : ",") + name + "=" + std::to_string(value);
    first = false;
  }
  return text + "}";
}

Schedule int21::search::defaultSchedule(const schedule::ScheduleChoice &choice) {
  Schedule schedule;
  schedule.sequence = choice.sequence;
  for (const auto &knob : choice.defaults)
    schedule.knobs[knob.getKey().str()] = knob.getValue();
  return schedule;
}

bool int21::search::isValidSchedule(const Kernel &kernel,
                                    const Schedule &schedule,
                                    std::string &why) {
  schedule::Knobs knobs;
  for (const auto &[name, value] : schedule.knobs)
    knobs[name] = value;
  // The template registry first (the template and its knobs exist), then
  // the kernel's own space (the template fits it, every value in its domain
  // for this work, the template's rules): the checks every schedule passes.
  if (failed(schedule::TemplateRegistry::get().check(schedule.sequence, knobs,
                                                      why)))
    return false;
  const schedule::ScheduleChoice *choice = kernel.findChoice(schedule.sequence);
  if (!choice) {
    why = "template @" + schedule.sequence + " does not fit this kernel";
    return false;
  }
  return schedule::isPlausible(*choice, knobs, why);
}

Schedule int21::search::randomSchedule(const schedule::ScheduleChoice &choice,
                                       std::mt19937_64 &rng) {
  Schedule schedule;
  schedule.sequence = choice.sequence;
  for (const schedule::KnobDomain &domain : choice.domains) {
    std::uniform_int_distribution<size_t> pick(0, domain.options.size() - 1);
    schedule.knobs[domain.name] = domain.options[pick(rng)];
  }
  return schedule;
}

llvm::StringRef int21::search::outcomeName(Outcome outcome) {
  switch (outcome) {
  case Outcome::Ok:
    return "ok";
  case Outcome::Invalid:
    return "invalid";
  case Outcome::CompileError:
    return "compile-error";
  case Outcome::CompileCrash:
    return "compile-crash";
  case Outcome::CompileTimeout:
    return "compile-timeout";
  case Outcome::Wrong:
    return "wrong";
  case Outcome::RunError:
    return "run-error";
  case Outcome::RunCrash:
    return "run-crash";
  case Outcome::RunTimeout:
    return "run-timeout";
  }
  return "unknown";
}

Blackboard::Blackboard(std::vector<Kernel> kernels)
    : kernelList(std::move(kernels)), byKernel(kernelList.size()),
      bestOf(kernelList.size()), defaultOf(kernelList.size()) {}

const Trial *Blackboard::best(unsigned kernel) const {
  return bestOf[kernel] ? &trialList[*bestOf[kernel]] : nullptr;
}

const Trial *Blackboard::defaultTrial(unsigned kernel) const {
  return defaultOf[kernel] ? &trialList[*defaultOf[kernel]] : nullptr;
}

const Trial &Blackboard::record(Trial trial) {
  trial.id = trialList.size();
  unsigned kernel = trial.candidate.kernel;
  hashes.insert(trial.hash);
  byKernel[kernel].push_back(trial.id);
  if (trial.isDefault)
    defaultOf[kernel] = trial.id;
  if (trial.outcome == Outcome::Ok &&
      (!bestOf[kernel] ||
       trial.time.medianMs < trialList[*bestOf[kernel]].time.medianMs))
    bestOf[kernel] = trial.id;
  trialList.push_back(std::move(trial));
  return trialList.back();
}
