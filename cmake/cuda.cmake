# nvcc, where CMake finds it (CUDACXX, PATH, or -DCMAKE_CUDA_COMPILER=/path/to/nvcc),
# and the one way the project builds CUDA kernels: shoal_cuda_fatbin(OUT SRC COMMENT
# [flags...]) adds the rule making the fatbin OUT from SRC, with SASS for
# SHOAL_CUDA_ARCH and PTX for later GPUs, warnings as errors under SHOAL_WERROR; extra
# arguments go to nvcc. The caller depends on OUT.
include(CheckLanguage)
check_language(CUDA)
set(SHOAL_CUDA_ARCH 90 CACHE STRING "GPU architecture of the CUDA kernels (sm_N)")

function(shoal_cuda_fatbin out src comment)
  set(werror "")
  if(SHOAL_WERROR)
    set(werror --Werror all-warnings)
  endif()
  add_custom_command(OUTPUT ${out}
    COMMAND ${CMAKE_CUDA_COMPILER} -fatbin -O3 ${werror}
      -gencode arch=compute_${SHOAL_CUDA_ARCH},code=sm_${SHOAL_CUDA_ARCH}
      -gencode arch=compute_${SHOAL_CUDA_ARCH},code=compute_${SHOAL_CUDA_ARCH}
      ${ARGN} -o ${out} ${src}
    DEPENDS ${src} ${PROJECT_SOURCE_DIR}/include/shmemx_device.h
    COMMENT "nvcc: ${comment} (sm_${SHOAL_CUDA_ARCH} and PTX)")
endfunction()
