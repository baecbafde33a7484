#pragma once

/// The seed scenarios `ballast demo` runs, carried inside the binary: the
/// files of adapters/sim/scenarios/, embedded at build time
/// (tools/embed_files.py), by file name.

#include <map>
#include <string>

namespace ballast::tools {

const std::map<std::string, std::string>& embedded_files();

}  // namespace ballast::tools
