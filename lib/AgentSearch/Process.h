//===- Process.h - child processes with time limits -----------------------===//
//
// The search runs every compile and measurement in a child process, so that
// a candidate that crashes or hangs costs one trial, never the search. A
// child runs in its own process group: on timeout the whole group (the
// linker a compile starts, say) is killed. Safe to call from several threads.
//
// A child's own process group does not get the terminal's Ctrl-C: while an
// InterruptScope lives, SIGINT, SIGTERM and SIGHUP kill every live child's
// group at once and are remembered (interruption()), so that the search can
// stop, keep what it committed and remove its working files, instead of
// dying with its children running on.
//
//===----------------------------------------------------------------------===//

#ifndef INT21_LIB_AGENTSEARCH_PROCESS_H
#define INT21_LIB_AGENTSEARCH_PROCESS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <atomic>
#include <string>
#include <sys/types.h>

namespace int21::search {

struct ProcessResult {
  /// The exit code when the child exited, -1 otherwise.
  int exitCode = -1;
  /// The signal that ended it, 0 if none.
  int signal = 0;
  bool timedOut = false;
  /// It could not be started; `error` says why.
  bool failedToStart = false;
  std::string error;
  double seconds = 0;

  bool succeeded() const { return exitCode == 0; }
};

/// Runs `argv` with stdout and stderr written to the given files (empty:
/// /dev/null) and waits at most `timeoutSeconds` (0: no limit).
ProcessResult runProcess(llvm::ArrayRef<std::string> argv,
                         llvm::StringRef stdoutPath,
                         llvm::StringRef stderrPath, double timeoutSeconds);

/// The signal (SIGINT, SIGTERM, SIGHUP) that arrived while an InterruptScope
/// lived, 0 if none. A child that ended after it did was killed by it: its
/// result says nothing about the candidate.
int interruption();

/// Catches SIGINT, SIGTERM and SIGHUP while it lives (see above); the
/// previous handlers come back when it ends. interruption() keeps the signal
/// until the next scope begins. One scope at a time.
class InterruptScope {
public:
  InterruptScope();
  ~InterruptScope();
  InterruptScope(const InterruptScope &) = delete;
  InterruptScope &operator=(const InterruptScope &) = delete;

private:
  struct Saved;
  Saved *saved;
};

/// A child connected by pipes to its stdin and stdout (stderr inherited).
class PipedProcess {
public:
  PipedProcess() = default;
  ~PipedProcess();
  PipedProcess(const PipedProcess &) = delete;
  PipedProcess &operator=(const PipedProcess &) = delete;

  /// Starts `/bin/sh -c command`; false with `error` set on failure.
  bool start(const std::string &command, std::string &error);
  /// Writes one line (a newline is added); false when the child is gone.
  bool writeLine(llvm::StringRef line);
  /// Reads one line within `timeoutSeconds`; false on timeout or EOF.
  bool readLine(std::string &line, double timeoutSeconds);
  /// Closes stdin, waits up to `graceSeconds`, then kills the child.
  void stop(double graceSeconds);

private:
  pid_t pid = -1;
  int toChild = -1, fromChild = -1;
  /// Its entry among the live children (see InterruptScope).
  std::atomic<pid_t> *liveSlot = nullptr;
  std::string buffered;
};

} // namespace int21::search

#endif // INT21_LIB_AGENTSEARCH_PROCESS_H
