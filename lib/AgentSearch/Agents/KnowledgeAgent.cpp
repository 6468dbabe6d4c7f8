//===- KnowledgeAgent.cpp - what won before, on this work or similar work -===//
//
// The knowledge agent proposes, for a kernel, first the schedules recorded
// for the same work under another compiler version, on another machine or
// timed on another number of threads (they must be measured again before
// they are trusted), then those of the
// nearest similar work: the same op kind and element types under a template
// the kernel also has, nearest dimensions first (distance in log2 of each
// dimension), each knob moved to the nearest value of the kernel's own
// domain. When it has nothing left for a kernel, it proposes nothing.
//
//===----------------------------------------------------------------------===//

#include "AgentSupport.h"

#include "int21/AgentSearch/KnowledgeBase.h"

#include <cmath>
#include <map>

using namespace int21::search;

namespace {

class KnowledgeAgent final : public Agent {
public:
  explicit KnowledgeAgent(std::vector<KnowledgeRecord> records)
      : records(std::move(records)) {}
  llvm::StringRef name() const override { return "knowledge"; }
  bool seedsEachKernel() const override { return true; }

  std::vector<Candidate> propose(const Blackboard &board, unsigned kernel,
                                 unsigned count) override {
    std::vector<Schedule> &queue = queueFor(board.kernels()[kernel], kernel);
    const Kernel &work = board.kernels()[kernel];
    std::vector<Candidate> out;
    while (out.size() < count && !queue.empty()) {
      Schedule schedule = std::move(queue.front());
      queue.erase(queue.begin());
      if (!detail::alreadyProposed(board, work, schedule, out))
        out.push_back(detail::makeCandidate(kernel, std::move(schedule),
                                            name()));
    }
    return out;
  }

private:
  /// The schedules still to propose for `kernel`, best guess first.
  std::vector<Schedule> &queueFor(const Kernel &work, unsigned kernel) {
    auto [it, inserted] = queues.try_emplace(kernel);
    if (!inserted)
      return it->second;
    std::vector<std::pair<double, Schedule>> ranked;
    for (const KnowledgeRecord &record : records) {
      const int21::schedule::ScheduleChoice *choice =
          work.findChoice(record.schedule.sequence);
      if (!choice)
        continue;
      if (record.signature == work.signature) {
        // The same work, recorded elsewhere: as it was.
        ranked.push_back({-1, record.schedule});
        continue;
      }
      if (record.opKind != work.opKind ||
          record.elementTypes != work.elementTypes)
        continue;
      double distance = detail::dimsDistance(record.dims, work.loops);
      if (!std::isfinite(distance))
        continue;
      Schedule adapted = detail::fitToChoice(*choice, record.schedule);
      std::string why;
      if (!isValidSchedule(work, adapted, why))
        continue;
      ranked.push_back({distance, std::move(adapted)});
    }
    std::stable_sort(ranked.begin(), ranked.end(),
                     [](const auto &a, const auto &b) {
                       return a.first < b.first;
                     });
    // The nearest few: farther work says little about this one.
    constexpr size_t kMostSimilar = 8;
    for (auto &[distance, schedule] : ranked) {
      if (it->second.size() == kMostSimilar)
        break;
      bool seen = llvm::any_of(it->second, [&](const Schedule &s) {
        return s.sequence == schedule.sequence && s.knobs == schedule.knobs;
      });
      if (!seen)
        it->second.push_back(std::move(schedule));
    }
    return it->second;
  }

  std::vector<KnowledgeRecord> records;
  std::map<unsigned, std::vector<Schedule>> queues;
};

} // namespace

std::unique_ptr<Agent>
int21::search::createKnowledgeAgent(std::vector<KnowledgeRecord> records) {
  return std::make_unique<KnowledgeAgent>(std::move(records));
}
