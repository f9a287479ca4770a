// Atomic output: whole or absent, including on errors and signals.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>

#include "fhe/core/error.h"
#include "recommend/atomic_file.h"
#include "tests/recommend/test_support.h"
#include "tests/support/process.h"

namespace fhelium {
namespace {

using fhelium::testing::read_text;

TEST(AtomicFile, WritesTheWholeContentAndNoTemporaryFile) {
  test::TempDir dir;
  const auto target = dir.path() / "out.json";
  const std::string big(300000, 'x');  // larger than the stream buffer
  write_file_atomically(target, [&](std::ostream& out) { out << big << "end"; });
  EXPECT_EQ(read_text(target), big + "end");
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"out.json"});
}

TEST(AtomicFile, WriterErrorLeavesNothingAndKeepsTheOldFile) {
  test::TempDir dir;
  const auto target = dir.path() / "out.json";
  EXPECT_THROW(write_file_atomically(target,
                                     [](std::ostream& out) {
                                       out << std::string(100000, 'y');
                                       throw std::runtime_error("writer failed");
                                     }),
               std::runtime_error);
  EXPECT_TRUE(dir.entries().empty());
  write_file_atomically(target, [](std::ostream& out) { out << "old"; });
  EXPECT_THROW(write_file_atomically(target, [](std::ostream&) { throw std::runtime_error("no"); }),
               std::runtime_error);
  EXPECT_EQ(read_text(target), "old");
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"out.json"});
}

TEST(AtomicFile, BadDirectoriesAreInvalidArguments) {
  test::TempDir dir;
  EXPECT_THROW(check_output_path(dir.path() / "missing" / "out.json"), fhe::InvalidArgument);
  EXPECT_THROW(check_output_path(dir.path()), fhe::InvalidArgument);  // a directory
  write_file_atomically(dir.path() / "plain", [](std::ostream& out) { out << "file"; });
  EXPECT_THROW(check_output_path(dir.path() / "plain" / "out.json"), fhe::InvalidArgument);
  EXPECT_THROW(write_file_atomically(dir.path() / "missing" / "out.json", [](std::ostream&) {}),
               fhe::InvalidArgument);
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"plain"});
}

// A FIFO (or a device such as /dev/null) is refused, not replaced by a
// regular file.
TEST(AtomicFile, AnOutputThatIsNotARegularFileIsRefused) {
  test::TempDir dir;
  const auto fifo = dir.path() / "fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_THROW(check_output_path(fifo), fhe::InvalidArgument);
  EXPECT_THROW(write_file_atomically(fifo, [](std::ostream& out) { out << "x"; }), fhe::InvalidArgument);
  EXPECT_TRUE(std::filesystem::is_fifo(fifo));
  EXPECT_THROW(check_output_path("/dev/null"), fhe::InvalidArgument);
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"fifo"});
}

TEST(AtomicFile, InterruptDuringTheWriteRemovesTheTemporaryFile) {
  test::TempDir dir;
  const auto target = dir.path() / "out.json";
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    signal(SIGINT, SIG_DFL);
    write_file_atomically(target, [](std::ostream& out) {
      out << std::string(200000, 'z');
      out.flush();
      raise(SIGINT);  // the handler removes the temp file and re-raises
    });
    _exit(0);  // not reached
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFSIGNALED(status));
  EXPECT_EQ(WTERMSIG(status), SIGINT);
  EXPECT_TRUE(dir.entries().empty());
}

}  // namespace
}  // namespace fhelium
