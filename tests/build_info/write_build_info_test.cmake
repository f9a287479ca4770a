# Runs write_build_info.cmake on a scratch folder (not the top of a git
# checkout, so git is never asked) and checks the header it writes.
file(REMOVE_RECURSE ${SCRATCH})
file(MAKE_DIRECTORY ${SCRATCH}/tree)
set(header ${SCRATCH}/git_state.h)

# run(EXPECTED_COMMIT EXPECTED_DIRTY [-D... arguments]), with the caller's environment.
function(run expected_commit expected_dirty)
  file(REMOVE ${header})
  execute_process(COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${SCRATCH}/tree -DOUTPUT=${header} ${ARGN} -P ${SCRIPT}
                  RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "write_build_info failed (${ARGN}): ${err}")
  endif()
  file(READ ${header} text)
  if(NOT text MATCHES "FHELIUM_GIT_COMMIT \"${expected_commit}\"\n#define FHELIUM_GIT_DIRTY ${expected_dirty}\n")
    message(FATAL_ERROR "with ${ARGN} and FHELIUM_GIT_COMMIT='$ENV{FHELIUM_GIT_COMMIT}' expected "
                        "${expected_commit} / ${expected_dirty}, got:\n${text}")
  endif()
endfunction()

unset(ENV{FHELIUM_GIT_COMMIT})
unset(ENV{FHELIUM_GIT_DIRTY})
run(unknown true)
run(unknown true -DCONFIGURED_COMMIT= -DCONFIGURED_DIRTY=)
run(abc123 false -DCONFIGURED_COMMIT=abc123 -DCONFIGURED_DIRTY=false)
run(abc123 true -DCONFIGURED_COMMIT=abc123)
set(ENV{FHELIUM_GIT_COMMIT} def456)
set(ENV{FHELIUM_GIT_DIRTY} false)
run(def456 false -DCONFIGURED_COMMIT=abc123 -DCONFIGURED_DIRTY=true)
unset(ENV{FHELIUM_GIT_DIRTY})
run(def456 true)

# A dirty flag that is not true or false: one clear error, no header.
unset(ENV{FHELIUM_GIT_COMMIT})
file(REMOVE ${header})
execute_process(COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${SCRATCH}/tree -DOUTPUT=${header}
                        -DCONFIGURED_COMMIT=abc123 -DCONFIGURED_DIRTY=OFF -P ${SCRIPT}
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(rc EQUAL 0 OR NOT err MATCHES "FHELIUM_GIT_DIRTY must be true or false" OR EXISTS ${header})
  message(FATAL_ERROR "a dirty flag of OFF was not refused (rc ${rc}): ${err}")
endif()
