# SPDX-License-Identifier: MIT
# lib/tuning sits below the templates (lib/algorithms) and the tuner (lib/tuner): it includes
# neither (docs/architecture.md, "Tuning").
add_test(NAME tuning_layer_includes_no_template_or_tuner
  COMMAND sh -c "! grep -rnE '#include \"(\\.\\./)*(algorithms|tuner)/' '${PROJECT_SOURCE_DIR}/lib/tuning'")
