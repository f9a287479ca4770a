# Writes the build facts (git commit, dirty flag) into a header at build time,
# touching it only when they change, so provenance never names a stale commit.
execute_process(COMMAND git rev-parse HEAD WORKING_DIRECTORY ${SOURCE_DIR}
                OUTPUT_VARIABLE commit OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR NOT commit)
  set(commit "unknown")
endif()
execute_process(COMMAND git status --porcelain --untracked-files=no WORKING_DIRECTORY ${SOURCE_DIR}
                OUTPUT_VARIABLE status OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE rc)
if(rc EQUAL 0 AND status STREQUAL "")
  set(dirty false)
else()
  set(dirty true)
endif()
# A copy of the tree without .git (the GPU machine gets one) names its
# commit through the environment: FHELIUM_GIT_COMMIT and FHELIUM_GIT_DIRTY.
if(commit STREQUAL "unknown" AND DEFINED ENV{FHELIUM_GIT_COMMIT})
  set(commit "$ENV{FHELIUM_GIT_COMMIT}")
  set(dirty true)
  if(DEFINED ENV{FHELIUM_GIT_DIRTY})
    set(dirty "$ENV{FHELIUM_GIT_DIRTY}")
  endif()
endif()
set(content "// Generated at build time by cmake/write_build_info.cmake.\n#pragma once\n#define FHELIUM_GIT_COMMIT \"${commit}\"\n#define FHELIUM_GIT_DIRTY ${dirty}\n")
if(EXISTS ${OUTPUT})
  file(READ ${OUTPUT} old)
endif()
if(NOT "${old}" STREQUAL "${content}")
  file(WRITE ${OUTPUT} "${content}")
endif()
