/* A PKCS #11 module that is Debian's SoftHSM2, whose token says it is locked while the variable
 * WVH_TOKEN_LOCKED is 1: C_GetTokenInfo adds CKF_USER_PIN_LOCKED and C_Login answers
 * CKR_PIN_LOCKED, as a smart card does after too many wrong PINs (SoftHSM2 never locks).
 * ClientCertificateTests builds it and puts it in place of SoftHSM2's module (p11-kit's module
 * folder, in a bubblewrap mount namespace of the scenario's own). */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#define CK_PTR *
#define CK_DEFINE_FUNCTION(returnType, name) returnType name
#define CK_DECLARE_FUNCTION(returnType, name) returnType name
#define CK_DECLARE_FUNCTION_POINTER(returnType, name) returnType (*name)
#define CK_CALLBACK_FUNCTION(returnType, name) returnType (*name)
#include <p11-kit/pkcs11.h>

static CK_FUNCTION_LIST_PTR softhsm;
static CK_FUNCTION_LIST locked;

static int is_locked(void) {
    const char *value = getenv("WVH_TOKEN_LOCKED");
    return value != NULL && strcmp(value, "1") == 0;
}

static CK_RV locked_get_token_info(CK_SLOT_ID slot, CK_TOKEN_INFO_PTR info) {
    CK_RV rv = softhsm->C_GetTokenInfo(slot, info);
    if (rv == CKR_OK && is_locked()) info->flags |= CKF_USER_PIN_LOCKED;
    return rv;
}

static CK_RV locked_login(CK_SESSION_HANDLE session, CK_USER_TYPE user, CK_UTF8CHAR_PTR pin, CK_ULONG length) {
    if (is_locked()) return CKR_PIN_LOCKED;
    return softhsm->C_Login(session, user, pin, length);
}

CK_RV C_GetFunctionList(CK_FUNCTION_LIST_PTR_PTR list) {
    if (list == NULL) return CKR_ARGUMENTS_BAD;
    if (softhsm == NULL) {
        void *module = dlopen(SOFTHSM2_MODULE, RTLD_NOW | RTLD_LOCAL);
        if (module == NULL) return CKR_GENERAL_ERROR;
        CK_C_GetFunctionList get = (CK_C_GetFunctionList)dlsym(module, "C_GetFunctionList");
        if (get == NULL || get(&softhsm) != CKR_OK) return CKR_GENERAL_ERROR;
        locked = *softhsm;
        locked.C_GetTokenInfo = locked_get_token_info;
        locked.C_Login = locked_login;
    }
    *list = &locked;
    return CKR_OK;
}
