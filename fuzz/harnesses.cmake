# The libFuzzer harnesses: fuzz/fuzz_<name>.c, corpus fuzz/corpus/<name>/.
# Read by fuzz/CMakeLists.txt (the IRM_FUZZ build) and tests/CMakeLists.txt
# (the corpus replays every build runs).
set(irm_fuzz_harnesses
  target_text
  from_json
  pipeline_text
  convert_legacy
  config_map
  module_ops
  ir_text
  evaluate
  pass_sequence
  graph_json
  params
  codegen_names
)
