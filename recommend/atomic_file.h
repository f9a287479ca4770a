// Output files that appear whole or not at all: the content goes to a
// temporary file in the target's directory, is fsynced and renamed over the
// target. SIGINT and SIGTERM during the write remove the temporary file
// before the process ends, so an interrupted run leaves nothing partial.
#pragma once

#include <filesystem>
#include <functional>
#include <ostream>

namespace fhelium {

// Throws InvalidArgument when `target` cannot be written: its directory is
// missing, not a directory or not writable, or `target` exists and is not
// a regular file (a directory, a device, a FIFO).
// Call before any long work so that bad paths fail first.
void check_output_path(const std::filesystem::path& target);

// Runs `write` on a stream into the temporary file, then publishes it as
// `target`. Any exception (from `write` or the file system) removes the
// temporary file and propagates; `target` is left untouched.
void write_file_atomically(const std::filesystem::path& target,
                           const std::function<void(std::ostream&)>& write);

}  // namespace fhelium
