//===- Process.cpp - child processes with time limits ---------------------===//

#include "Process.h"

#include "llvm/ADT/STLExtras.h"

#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

extern char **environ;

using namespace int21::search;

namespace {
using Clock = std::chrono::steady_clock;

//===----------------------------------------------------------------------===//
// Interruption: the live children, killed from a signal handler
//===----------------------------------------------------------------------===//

/// The process groups of the live children. Lock-free slots, so that the
/// signal handler may read them; more children than slots are not killed on
/// an interruption but end on their own (their time limits).
constexpr size_t kSlots = 256;
std::atomic<pid_t> liveGroups[kSlots];
std::atomic<int> caught{0};
static_assert(std::atomic<pid_t>::is_always_lock_free &&
                  std::atomic<int>::is_always_lock_free,
              "the signal handler needs lock-free atomics");

void killLiveGroups() {
  for (std::atomic<pid_t> &slot : liveGroups)
    if (pid_t group = slot.load(); group > 0)
      kill(-group, SIGKILL);
}

extern "C" void onInterrupt(int signal) {
  int expected = 0;
  caught.compare_exchange_strong(expected, signal);
  killLiveGroups();
}

constexpr int kInterruptSignals[] = {SIGINT, SIGTERM, SIGHUP};

/// Registers a live child's group: its slot (null when all are taken). A
/// signal that came while the child started found no group to kill: it is
/// killed here.
std::atomic<pid_t> *registerGroup(pid_t group) {
  std::atomic<pid_t> *taken = nullptr;
  for (std::atomic<pid_t> &slot : liveGroups) {
    pid_t empty = 0;
    if (slot.compare_exchange_strong(empty, group)) {
      taken = &slot;
      break;
    }
  }
  if (caught.load())
    kill(-group, SIGKILL);
  return taken;
}

void unregisterGroup(std::atomic<pid_t> *slot) {
  if (slot)
    slot->store(0);
}

/// A child's group registered for the time it runs.
class LiveChild {
public:
  explicit LiveChild(pid_t group) : slot(registerGroup(group)) {}
  ~LiveChild() { unregisterGroup(slot); }
  LiveChild(const LiveChild &) = delete;
  LiveChild &operator=(const LiveChild &) = delete;

private:
  std::atomic<pid_t> *slot;
};

double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

/// argv as the C array posix_spawn takes.
std::vector<char *> cArgs(llvm::ArrayRef<std::string> argv) {
  std::vector<char *> args;
  for (const std::string &arg : argv)
    args.push_back(const_cast<char *>(arg.c_str()));
  args.push_back(nullptr);
  return args;
}

/// Waits for `pid`, polling, at most `timeout` seconds (0: forever); kills
/// its process group on timeout.
void waitFor(pid_t pid, double timeout, Clock::time_point start,
             ProcessResult &result) {
  int status = 0;
  auto pause = std::chrono::microseconds(200);
  while (true) {
    pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid)
      break;
    if (done < 0 && errno != EINTR) {
      result.error = std::strerror(errno);
      return;
    }
    if (timeout > 0 && secondsSince(start) > timeout) {
      kill(-pid, SIGKILL);
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      result.timedOut = true;
      result.seconds = secondsSince(start);
      return;
    }
    std::this_thread::sleep_for(pause);
    // Short children are caught quickly; long ones cost little polling.
    pause = std::min(pause * 2, std::chrono::microseconds(20000));
  }
  result.seconds = secondsSince(start);
  if (WIFEXITED(status))
    result.exitCode = WEXITSTATUS(status);
  else if (WIFSIGNALED(status))
    result.signal = WTERMSIG(status);
}
} // namespace

ProcessResult int21::search::runProcess(llvm::ArrayRef<std::string> argv,
                                        llvm::StringRef stdoutPath,
                                        llvm::StringRef stderrPath,
                                        double timeoutSeconds) {
  ProcessResult result;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  std::string out = stdoutPath.empty() ? "/dev/null" : stdoutPath.str();
  std::string err = stderrPath.empty() ? "/dev/null" : stderrPath.str();
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, out.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, 2, err.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attributes, 0);

  std::vector<char *> args = cArgs(argv);
  pid_t pid;
  Clock::time_point start = Clock::now();
  int rc = posix_spawn(&pid, args[0], &actions, &attributes, args.data(),
                       environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  if (rc != 0) {
    result.failedToStart = true;
    result.error = "cannot run " + argv[0] + ": " + std::strerror(rc);
    return result;
  }
  LiveChild live(pid);
  waitFor(pid, timeoutSeconds, start, result);
  return result;
}

int int21::search::interruption() { return caught.load(); }

struct InterruptScope::Saved {
  struct sigaction old[std::size(kInterruptSignals)];
};

InterruptScope::InterruptScope() : saved(new Saved) {
  caught.store(0);
  struct sigaction action = {};
  action.sa_handler = onInterrupt;
  sigemptyset(&action.sa_mask);
  for (auto [i, signal] : llvm::enumerate(kInterruptSignals))
    sigaction(signal, &action, &saved->old[i]);
}

InterruptScope::~InterruptScope() {
  for (auto [i, signal] : llvm::enumerate(kInterruptSignals))
    sigaction(signal, &saved->old[i], nullptr);
  delete saved;
}

PipedProcess::~PipedProcess() { stop(0); }

bool PipedProcess::start(const std::string &command, std::string &error) {
  int in[2], out[2];
  if (pipe(in) != 0 || pipe(out) != 0) {
    error = std::strerror(errno);
    return false;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in[0], 0);
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  for (int fd : {in[0], in[1], out[0], out[1]})
    posix_spawn_file_actions_addclose(&actions, fd);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attributes, 0);
  std::vector<std::string> argv = {"/bin/sh", "-c", command};
  std::vector<char *> args = cArgs(argv);
  int rc = posix_spawn(&pid, args[0], &actions, &attributes, args.data(),
                       environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  close(in[0]);
  close(out[1]);
  if (rc != 0) {
    close(in[1]);
    close(out[0]);
    pid = -1;
    error = std::strerror(rc);
    return false;
  }
  toChild = in[1];
  fromChild = out[0];
  liveSlot = registerGroup(pid);
  // A child that exits must not kill the search with SIGPIPE.
  signal(SIGPIPE, SIG_IGN);
  return true;
}

bool PipedProcess::writeLine(llvm::StringRef line) {
  if (toChild < 0)
    return false;
  std::string data = line.str() + "\n";
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = write(toChild, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    done += n;
  }
  return true;
}

bool PipedProcess::readLine(std::string &line, double timeoutSeconds) {
  Clock::time_point start = Clock::now();
  while (true) {
    size_t newline = buffered.find('\n');
    if (newline != std::string::npos) {
      line = buffered.substr(0, newline);
      buffered.erase(0, newline + 1);
      return true;
    }
    if (fromChild < 0)
      return false;
    double left = timeoutSeconds - secondsSince(start);
    if (left <= 0)
      return false;
    pollfd fd = {fromChild, POLLIN, 0};
    int ready = poll(&fd, 1, static_cast<int>(left * 1000) + 1);
    if (ready < 0 && errno == EINTR)
      continue;
    if (ready <= 0)
      return false;
    char chunk[4096];
    ssize_t n = read(fromChild, chunk, sizeof(chunk));
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      close(fromChild);
      fromChild = -1;
      continue;
    }
    buffered.append(chunk, n);
  }
}

void PipedProcess::stop(double graceSeconds) {
  if (toChild >= 0) {
    close(toChild);
    toChild = -1;
  }
  if (pid > 0) {
    ProcessResult ignored;
    waitFor(pid, graceSeconds > 0 ? graceSeconds : 0.001, Clock::now(),
            ignored);
    pid = -1;
  }
  unregisterGroup(liveSlot);
  liveSlot = nullptr;
  if (fromChild >= 0) {
    close(fromChild);
    fromChild = -1;
  }
}
