# Package test: install this build into a scratch prefix, then configure, build and run the
# consumer project in tests/consumer against it with find_package(clforge CONFIG REQUIRED).
add_test(NAME package_consumer
  COMMAND ${CMAKE_COMMAND}
    -DBUILD_DIR=${PROJECT_BINARY_DIR}
    -DCONSUMER_SOURCE=${CMAKE_CURRENT_SOURCE_DIR}/consumer
    -DWORK_DIR=${PROJECT_BINARY_DIR}/package-test
    -P ${CMAKE_CURRENT_SOURCE_DIR}/consumer/package_test.cmake)
set_tests_properties(package_consumer PROPERTIES ENVIRONMENT "${CLFORGE_TEST_ENV}" TIMEOUT 600)
