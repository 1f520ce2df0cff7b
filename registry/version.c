#include "irm/c_api.h"

const char *irm_version(void) { return IRM_VERSION_STRING; }
