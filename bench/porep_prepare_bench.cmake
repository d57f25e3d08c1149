# PoRep C2 prepare stages on a real C1 (bench/porep_prepare_bench.cpp): parse, shape check, vanilla
# checks, public inputs, PorepJob::prepare.
add_executable(porep_prepare_bench ${CMAKE_CURRENT_LIST_DIR}/porep_prepare_bench.cpp)
target_link_libraries(porep_prepare_bench PRIVATE cuzk_filecoin_porep)
