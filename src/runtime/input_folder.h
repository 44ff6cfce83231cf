// --input DIR: a folder of input files (images, .npy, .pb, .json) fed to one graph input
// round-robin, one file per inference, as benchmark tools do.
#pragma once

#include <string>
#include <vector>

#include "runtime/input_binding.h"

namespace strata::runtime {

// The files of `dir` in name order (regular files, not hidden ones). Fails naming `dir` when it
// is not a folder or holds no file.
std::vector<std::string> input_folder_files(const std::string& dir);

// One BindOptions per input set: each --input argument that names a folder is replaced in set k
// by the folder's file k mod (its file count); there are as many sets as the largest folder has
// files. Without folders: `options` alone. Fails naming an --input source that does not exist.
std::vector<BindOptions> expand_input_folders(const BindOptions& options);

// True when some --input argument of `options` names a folder.
bool has_input_folder(const BindOptions& options);

// Every input set of expand_input_folders bound (graph order); the origins of the first set name
// the folders ("imgs (12 files, round-robin)"). Fails naming the file when a set's input differs
// in dtype or shape from the first set's.
std::vector<std::vector<BoundInput>> bind_input_sets(const ir::Graph& graph,
                                                     const BindOptions& options);

}  // namespace strata::runtime
