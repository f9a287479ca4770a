# Writes the build facts (git commit, dirty flag) into a header at build time,
# touching it only when they change, so provenance never names a stale commit.
# An explicit FHELIUM_GIT_COMMIT (and FHELIUM_GIT_DIRTY) names the commit of a
# tree copied without its .git, as the GPU machine gets one: in the
# environment of the build, or else given when configuring (passed here as
# CONFIGURED_COMMIT and CONFIGURED_DIRTY). Otherwise git is asked, but only
# when SOURCE_DIR is the top of its own checkout: a copy of the tree inside
# another checkout must not take that checkout's commit. A commit named
# without its dirty flag is taken as dirty.
set(commit "unknown")
set(dirty true)
if(DEFINED ENV{FHELIUM_GIT_COMMIT})
  set(commit "$ENV{FHELIUM_GIT_COMMIT}")
  if(DEFINED ENV{FHELIUM_GIT_DIRTY})
    set(dirty "$ENV{FHELIUM_GIT_DIRTY}")
  endif()
elseif(NOT "${CONFIGURED_COMMIT}" STREQUAL "")
  set(commit "${CONFIGURED_COMMIT}")
  if(NOT "${CONFIGURED_DIRTY}" STREQUAL "")
    set(dirty "${CONFIGURED_DIRTY}")
  endif()
else()
  execute_process(COMMAND git rev-parse --show-toplevel WORKING_DIRECTORY ${SOURCE_DIR}
                  OUTPUT_VARIABLE top OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE rc)
  get_filename_component(source_real "${SOURCE_DIR}" REALPATH)
  if(rc EQUAL 0 AND top)
    get_filename_component(top "${top}" REALPATH)
  endif()
  if(rc EQUAL 0 AND top STREQUAL source_real)
    execute_process(COMMAND git rev-parse HEAD WORKING_DIRECTORY ${SOURCE_DIR}
                    OUTPUT_VARIABLE head OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE rc)
    if(rc EQUAL 0 AND head)
      set(commit "${head}")
      execute_process(COMMAND git status --porcelain --untracked-files=no WORKING_DIRECTORY ${SOURCE_DIR}
                      OUTPUT_VARIABLE status OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE rc)
      if(rc EQUAL 0 AND status STREQUAL "")
        set(dirty false)
      endif()
    endif()
  endif()
endif()
if(NOT dirty STREQUAL "true" AND NOT dirty STREQUAL "false")
  message(FATAL_ERROR "FHELIUM_GIT_DIRTY must be true or false, not '${dirty}'")
endif()
set(content "// Generated at build time by cmake/write_build_info.cmake.\n#pragma once\n#define FHELIUM_GIT_COMMIT \"${commit}\"\n#define FHELIUM_GIT_DIRTY ${dirty}\n")
if(EXISTS ${OUTPUT})
  file(READ ${OUTPUT} old)
endif()
if(NOT "${old}" STREQUAL "${content}")
  file(WRITE ${OUTPUT} "${content}")
endif()
