# Runs the quickstart and checks each error of its JSON object against the
# SPEC tolerances (codec 1e-5, add 2e-5, key switching 2e-5, multiply 3e-5).
# Usage: cmake -DQUICKSTART=<path> -P check_quickstart.cmake
execute_process(COMMAND ${QUICKSTART} OUTPUT_VARIABLE output RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "quickstart exited with ${status}")
endif()
message(STATUS "quickstart: ${output}")
set(tolerances
  codec 1e-5  encrypt_decrypt 1e-5  add 2e-5  sub 2e-5
  multiply_plain_rescale 3e-5  multiply_relinearize_rescale 3e-5
  rotate 2e-5  conjugate 2e-5  rotate_many_by_steps 2e-5)
string(JSON reported LENGTH "${output}")
list(LENGTH tolerances pairs)
math(EXPR expected "${pairs} / 2")
if(NOT reported EQUAL expected)
  message(FATAL_ERROR "quickstart reported ${reported} operations, expected ${expected}")
endif()
while(tolerances)
  list(POP_FRONT tolerances operation tolerance)
  string(JSON error ERROR_VARIABLE missing GET "${output}" ${operation})
  if(missing)
    message(FATAL_ERROR "quickstart did not report ${operation}")
  endif()
  if(NOT error LESS tolerance OR NOT error GREATER 0)
    message(FATAL_ERROR "${operation}: max error ${error} is not in (0, ${tolerance})")
  endif()
endwhile()
