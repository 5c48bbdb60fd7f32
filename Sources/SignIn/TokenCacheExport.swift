// The token cache is a module of its own (an app can read a store without SignIn); its public
// types (`Account`, `AuthenticationResult`, `IDTokenClaims`, `TokenCacheStorage` and the stores)
// stay SignIn's too, so an app that imports SignIn needs no other import.
@_exported public import TokenCache
