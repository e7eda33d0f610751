# mainJob.cmake — the README's main job (run.sh) as a CTest entry: generate the ONNX model with a custom op
# (sampleOnnxPlugin), build and save the engine with kilnexec --dynamicPlugins, load and run it, and check the
# exported output against the sample's C++ reference.
#   cmake -DKILNEXEC=<exe> -DSAMPLE=<sampleOnnxPlugin> -DPLUGINS=<lib.so> -DDIR=<scratch dir> -P mainJob.cmake
file(REMOVE_RECURSE "${DIR}")
file(MAKE_DIRECTORY "${DIR}")
function(step)
    execute_process(COMMAND ${ARGN} RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
    message("${out}${err}")
    if(NOT status EQUAL 0)
        message(FATAL_ERROR "step failed with exit status ${status}: ${ARGN}")
    endif()
    set(lastOutput "${out}${err}" PARENT_SCOPE)
endfunction()
step("${SAMPLE}" generate "${DIR}")
step("${KILNEXEC}" "--onnx=${DIR}/model.onnx" "--dynamicPlugins=${PLUGINS}" --minShapes=x:1x8 --optShapes=x:4x8
    --maxShapes=x:16x8 "--saveEngine=${DIR}/model.plan" --skipInference)
step("${KILNEXEC}" "--loadEngine=${DIR}/model.plan" "--dynamicPlugins=${PLUGINS}" --shapes=x:4x8
    "--loadInputs=x:${DIR}/x.bin" "--exportOutput=${DIR}/output.json" --iterations=20 --warmUp=0 --duration=0)
if(NOT lastOutput MATCHES "=== Performance summary ===.*Throughput: [0-9.e+-]+ qps.*&&&& PASSED")
    message(FATAL_ERROR "the kilnexec report lacks the performance summary or the PASSED line")
endif()
step("${SAMPLE}" check "${DIR}" "${DIR}/output.json")
if(NOT lastOutput MATCHES "PASSED: output y \\(4x16\\) matches the C\\+\\+ reference")
    message(FATAL_ERROR "the output check did not pass")
endif()
