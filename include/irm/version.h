/* irm version macros. CMake reads the numbers from this file, so it is the
 * one place the version lives. */
#ifndef IRM_VERSION_H
#define IRM_VERSION_H

#define IRM_VERSION_MAJOR 0
#define IRM_VERSION_MINOR 1
#define IRM_VERSION_PATCH 0

/* "MAJOR.MINOR.PATCH" as a string literal. */
#define IRM_VERSION_STRING_(a, b, c) #a "." #b "." #c
#define IRM_VERSION_STRING_X_(a, b, c) IRM_VERSION_STRING_(a, b, c)
#define IRM_VERSION_STRING IRM_VERSION_STRING_X_(IRM_VERSION_MAJOR, IRM_VERSION_MINOR, IRM_VERSION_PATCH)

#endif
