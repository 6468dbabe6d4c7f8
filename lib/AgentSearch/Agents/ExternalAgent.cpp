//===- ExternalAgent.cpp - an agent in another process, over JSON lines ---===//
//
// Speaks the protocol of docs/agent-protocol.md: the search writes one JSON
// object per line to the program's stdin (`propose`, `result`, `done`) and
// reads one line back for each `propose`. What comes back is only a template
// name and knob values, validated like any proposal: an external agent can
// choose points of the schedule space and nothing else. A program that dies,
// answers garbage or takes too long is dropped with a warning, and the search
// goes on without it. A well-formed proposal outside the space (an unknown
// template or knob, a value outside its domain, a value that is no integer)
// is a bug of the agent: it stops the search with an error naming the
// template and the knob.
//
//===----------------------------------------------------------------------===//

#include "../Process.h"
#include "AgentSupport.h"

#include "int21/Support/JSON.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace int21::search;
namespace schedule = int21::schedule;
namespace json = llvm::json;

namespace {
/// How long a proposal may take.
constexpr double kReplySeconds = 30;

json::Value spaceToJSON(const Kernel &kernel) {
  json::Array templates;
  for (const schedule::ScheduleChoice &choice : kernel.choices) {
    json::Array knobs;
    for (const schedule::KnobDomain &domain : choice.domains) {
      json::Array options;
      for (int64_t option : domain.options)
        options.push_back(option);
      knobs.push_back(json::Object{
          {"name", domain.name},
          {"kind", domain.alternative ? "alternative" : "knob"},
          {"options", std::move(options)},
          {"default", choice.defaults.lookup(domain.name)}});
    }
    json::Array dims;
    for (int64_t dim : choice.dims)
      dims.push_back(dim);
    templates.push_back(json::Object{{"template", choice.sequence},
                                     {"dims", std::move(dims)},
                                     {"knobs", std::move(knobs)}});
  }
  return templates;
}

json::Object knobsToJSON(const Schedule &schedule) {
  json::Object knobs;
  for (const auto &[name, value] : schedule.knobs)
    knobs[name] = value;
  return knobs;
}

class ExternalAgent final : public Agent {
public:
  ExternalAgent(std::string command, std::string label)
      : command(std::move(command)), label(std::move(label)) {}

  /// False where the program cannot be started at all. One that exits at
  /// once (a command the shell does not find) is dropped with a warning,
  /// as it would be a moment later: whether the hello still reaches its
  /// pipe is a race.
  bool start(uint64_t seed, std::string &error) {
    if (!process.start(command, error))
      return false;
    alive = true;
    send(json::Object{{"type", "hello"}, {"protocol", 1},
                      {"seed", static_cast<int64_t>(seed)}});
    return true;
  }

  llvm::StringRef name() const override { return label; }

  std::vector<Candidate> propose(const Blackboard &board, unsigned kernel,
                                 unsigned count) override {
    std::vector<Candidate> out;
    if (!alive)
      return out;
    const Kernel &work = board.kernels()[kernel];
    json::Object message{{"type", "propose"},
                         {"kernel", kernel},
                         {"count", count},
                         {"signature", work.signature},
                         {"name", work.name},
                         {"space", spaceToJSON(work)}};
    if (sentIR.insert(kernel).second)
      message["ir"] = work.ir;
    if (work.mergeOf)
      message["merge_of"] =
          json::Array{work.mergeOf->first, work.mergeOf->second};
    if (const Trial *best = board.best(kernel))
      message["best"] =
          json::Object{{"trial", best->id},
                       {"template", best->candidate.schedule.sequence},
                       {"knobs", knobsToJSON(best->candidate.schedule)},
                       {"median_ms", best->time.medianMs}};
    if (!send(std::move(message)))
      return out;
    std::string line;
    if (!process.readLine(line, kReplySeconds)) {
      drop("no answer to 'propose' within " +
           std::to_string(static_cast<int>(kReplySeconds)) + " s");
      return out;
    }
    ProposeReply reply = parseProposeReply(work, line, count);
    if (!reply.unreadable.empty()) {
      drop(reply.unreadable);
      return out;
    }
    if (!reply.outsideSpace.empty())
      return reject(work, reply.outsideSpace);
    for (Schedule &schedule : reply.schedules)
      out.push_back(detail::makeCandidate(kernel, std::move(schedule), name()));
    return out;
  }

  std::string failure() const override { return stopReason; }

  void observe(const Blackboard &board, const Trial &trial) override {
    if (!alive)
      return;
    json::Object message{
        {"type", "result"},
        {"trial", trial.id},
        {"kernel", trial.candidate.kernel},
        {"agent", trial.candidate.agent},
        {"template", trial.candidate.schedule.sequence},
        {"knobs", knobsToJSON(trial.candidate.schedule)},
        {"outcome", outcomeName(trial.outcome)},
    };
    if (trial.outcome == Outcome::Ok)
      message["median_ms"] = trial.time.medianMs;
    else
      message["error"] = trial.error;
    send(std::move(message));
  }

  void finish() override {
    if (alive)
      send(json::Object{{"type", "done"}});
    process.stop(/*graceSeconds=*/2);
    alive = false;
  }

private:
  bool send(json::Object message) {
    std::string line;
    llvm::raw_string_ostream os(line);
    os << json::Value(std::move(message));
    if (process.writeLine(line))
      return true;
    drop("the program is gone");
    return false;
  }

  /// Stops the search: the agent proposed a point outside the space.
  std::vector<Candidate> reject(const Kernel &work, const std::string &why) {
    stopReason = "agent '" + label + "' proposed a schedule outside the " +
                 "space of kernel '" + work.name + "': " + why;
    return {};
  }

  void drop(const std::string &why) {
    if (!alive)
      return;
    llvm::errs() << "int21-compile: warning: agent '" << label
                 << "' dropped: " << why << "\n";
    alive = false;
    process.stop(0);
  }

  std::string command, label, stopReason;
  PipedProcess process;
  bool alive = false;
  llvm::DenseSet<unsigned> sentIR;
};
} // namespace

ProposeReply int21::search::parseProposeReply(const Kernel &work,
                                              llvm::StringRef line,
                                              unsigned count) {
  ProposeReply reply;
  llvm::Expected<json::Value> parsed = int21::parseJSON(line);
  if (!parsed) {
    reply.unreadable =
        "unreadable answer: " + llvm::toString(parsed.takeError());
    return reply;
  }
  const json::Object *object = parsed->getAsObject();
  const json::Array *candidates =
      object ? object->getArray("candidates") : nullptr;
  if (!candidates) {
    reply.unreadable = "an answer without a 'candidates' array";
    return reply;
  }
  for (const json::Value &entry : *candidates) {
    if (reply.schedules.size() >= count)
      break;
    const json::Object *proposal = entry.getAsObject();
    if (!proposal)
      continue;
    Schedule schedule;
    std::optional<llvm::StringRef> sequence = proposal->getString("template");
    schedule.sequence = sequence ? sequence->str() : "";
    // Knobs not given keep the template's defaults.
    const schedule::ScheduleChoice *choice = work.findChoice(schedule.sequence);
    if (choice)
      schedule = defaultSchedule(*choice);
    // What the agent gave, checked against the registry (the template and
    // its knobs exist) and the space it was sent (the kernel's templates,
    // each value among its options); the rules between knobs, which that
    // space does not spell, are left to the search's checks, which record a
    // point that breaks them as an invalid trial.
    schedule::Knobs given;
    if (const json::Object *knobs = proposal->getObject("knobs"))
      for (const auto &[knob, value] : *knobs) {
        std::optional<int64_t> integer = value.getAsInteger();
        if (!integer) {
          std::string text;
          llvm::raw_string_ostream os(text);
          os << value;
          reply.outsideSpace = "knob '" + knob.str() + "' of template @" +
                               schedule.sequence + " must be an integer, got " +
                               text;
          return reply;
        }
        schedule.knobs[knob.str()] = *integer;
        given[knob.str()] = *integer;
      }
    std::string why;
    if (succeeded(schedule::TemplateRegistry::get().check(schedule.sequence,
                                                           given, why)) &&
        !choice)
      why = "template @" + schedule.sequence +
            " is not among the kernel's templates";
    if (!why.empty() || !schedule::isInSpace(*choice, given, why)) {
      reply.outsideSpace = why;
      return reply;
    }
    reply.schedules.push_back(std::move(schedule));
  }
  return reply;
}

llvm::Expected<std::unique_ptr<Agent>>
int21::search::createExternalAgent(const std::string &command, uint64_t seed) {
  // Named after the program, or the script an interpreter runs.
  llvm::SmallVector<llvm::StringRef> words;
  llvm::StringRef(command).split(words, ' ', -1, /*KeepEmpty=*/false);
  llvm::StringRef program = words.empty() ? "" : words.front();
  for (llvm::StringRef word : words) {
    llvm::StringRef base = llvm::sys::path::filename(word);
    program = word;
    if (!(base.starts_with("python") || base == "node" || base == "sh" ||
          base == "bash" || base == "perl" || base == "ruby" ||
          base == "env" || word.starts_with("-")))
      break;
  }
  auto agent = std::make_unique<ExternalAgent>(
      command, ("external:" + llvm::sys::path::filename(program)).str());
  std::string error;
  if (!agent->start(seed, error))
    return llvm::createStringError("--agent-cmd '" + command +
                                   "': cannot start: " + error);
  return std::move(agent);
}
