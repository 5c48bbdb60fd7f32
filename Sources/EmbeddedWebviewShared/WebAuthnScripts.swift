// Generated from WebAuthn/webauthn-page.js and WebAuthn/webauthn-relay.js by WebAuthn/embed.py:
// edit those, then run `python3 Sources/EmbeddedWebviewShared/WebAuthn/embed.py`.

/// The two user scripts of ``WebAuthnBridge``, compiled into both embedded providers.
enum WebAuthnScripts {
    /// The page's world, top frame, at document start: `PublicKeyCredential`,
    /// `navigator.credentials`, each call sent as a DOM event carrying a JSON string.
    static let page = #"""
// The Web Authentication API (WebAuthn Level 3) for WebKitGTK, which has none.
// Injected at document start into the top frame's page world, before any page script. It
// converts and checks the options as a browser's bindings do, then hands each request, as a JSON
// string, to the relay in the isolated world "webviewhost-webauthn" (webauthn-relay.js) by a
// "webviewhost-webauthn-request" event on document; the answer comes back as a
// "webviewhost-webauthn-response" event. The origin of a request is added by the relay, never here.
//
// Page scripts run later and can replace any global or prototype method, so everything used after
// injection is captured now, called through Reflect.apply, and the JSON sent is written here:
// no prototype method, iterator, setter or toJSON of the page is reached on the way.
(function () {
  "use strict";
  if (!window.isSecureContext || typeof window.PublicKeyCredential === "function") { return; }

  // ---- Captured builtins ---------------------------------------------------------------------
  const O = Object, apply = Reflect.apply, define = O.defineProperty, create = O.create;
  const keys = O.keys, getDesc = O.getOwnPropertyDescriptor, getProto = O.getPrototypeOf;
  const hasOwnProperty = O.prototype.hasOwnProperty, isArray = Array.isArray;
  const jsonParse = JSON.parse, jsonString = JSON.stringify; // jsonString: on string primitives only
  const NativePromise = Promise, promiseResolve = Promise.resolve.bind(Promise);
  const NativeDOMException = DOMException, NativeTypeError = TypeError;
  const NativeCustomEvent = CustomEvent, NativeUint8Array = Uint8Array;
  const isView = ArrayBuffer.isView, NativeWeakMap = WeakMap;
  const weakGet = WeakMap.prototype.get, weakSet = WeakMap.prototype.set, iterator = Symbol.iterator;
  const getter = (proto, name) => getDesc(proto, name).get;
  const bufferByteLength = getter(ArrayBuffer.prototype, "byteLength");
  const typedArray = getProto(Uint8Array.prototype);
  const taBuffer = getter(typedArray, "buffer"), taOffset = getter(typedArray, "byteOffset"), taLength = getter(typedArray, "byteLength");
  const dvBuffer = getter(DataView.prototype, "buffer"), dvOffset = getter(DataView.prototype, "byteOffset"), dvLength = getter(DataView.prototype, "byteLength");
  const signalAborted = getter(AbortSignal.prototype, "aborted"), signalReason = getter(AbortSignal.prototype, "reason");
  const eventDetail = getter(CustomEvent.prototype, "detail");
  const addListener = EventTarget.prototype.addEventListener, removeListener = EventTarget.prototype.removeEventListener;
  const dispatch = EventTarget.prototype.dispatchEvent, getRandomValues = Crypto.prototype.getRandomValues;
  const doc = document, nav = navigator, cryptoObject = crypto;

  const hasOwn = (object, key) => object !== null && typeof object === "object" && apply(hasOwnProperty, object, [key]);
  const own = (object, key) => (hasOwn(object, key) ? object[key] : undefined);
  const append = (array, value) => define(array, array.length, { value, writable: true, enumerable: true, configurable: true });
  const typeError = (message) => new NativeTypeError(message);
  const domError = (message, name) => new NativeDOMException(message, name);
  const rejected = (error) => new NativePromise((resolve, reject) => reject(error));
  const copyArray = (array) => { const out = []; for (let i = 0; i < array.length; i++) { append(out, array[i]); } return out; };
  // Drops the members that are undefined.
  const clean = (object) => { const names = keys(object); for (let i = 0; i < names.length; i++) { if (object[names[i]] === undefined) { delete object[names[i]]; } } return object; };

  // ---- Bytes and base64url (no padding) ------------------------------------------------------
  const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  const DECODE = create(null);
  for (let i = 0; i < 64; i++) { DECODE[ALPHABET[i]] = i; }

  // A copy of a BufferSource's bytes (WebIDL copies them at the call); TypeError for anything else,
  // a SharedArrayBuffer included (the captured getters are the brand checks).
  function bytesOf(value, what) {
    let buffer, offset, length;
    try {
      if (isView(value)) {
        try { buffer = apply(taBuffer, value, []); offset = apply(taOffset, value, []); length = apply(taLength, value, []); }
        catch (e) { buffer = apply(dvBuffer, value, []); offset = apply(dvOffset, value, []); length = apply(dvLength, value, []); }
        apply(bufferByteLength, buffer, []);
      } else {
        buffer = value; offset = 0; length = apply(bufferByteLength, value, []);
      }
    } catch (e) { throw typeError(what + " is not a BufferSource."); }
    const source = new NativeUint8Array(buffer, offset, length), copy = new NativeUint8Array(length);
    for (let i = 0; i < length; i++) { copy[i] = source[i]; }
    return copy;
  }
  function encode(bytes) {
    let text = "";
    for (let i = 0; i < bytes.length; i += 3) {
      const n = (bytes[i] << 16) | ((bytes[i + 1] || 0) << 8) | (bytes[i + 2] || 0);
      text += ALPHABET[n >> 18] + ALPHABET[(n >> 12) & 63];
      if (i + 1 < bytes.length) { text += ALPHABET[(n >> 6) & 63]; }
      if (i + 2 < bytes.length) { text += ALPHABET[n & 63]; }
    }
    return text;
  }
  // base64url to a new ArrayBuffer; trailing "=" padding is accepted; EncodingError otherwise.
  function decode(text) {
    if (typeof text !== "string") { throw typeError("Expected a base64url string."); }
    let end = text.length;
    while (end > 0 && text[end - 1] === "=") { end--; }
    if (end % 4 === 1 || (end < text.length && text.length % 4 !== 0)) { throw domError("Invalid base64url.", "EncodingError"); }
    const out = new NativeUint8Array((end * 3) >> 2);
    let bits = 0, value = 0, j = 0;
    for (let i = 0; i < end; i++) {
      const digit = DECODE[text[i]];
      if (digit === undefined) { throw domError("Invalid base64url.", "EncodingError"); }
      value = (value << 6) | digit; bits += 6;
      if (bits >= 8) { bits -= 8; out[j++] = (value >> bits) & 255; }
    }
    return apply(taBuffer, out, []);
  }
  const bufferSource = (value, what) => encode(bytesOf(value, what));
  const isBuffer = (value) => { try { apply(bufferByteLength, value, []); return true; } catch (e) { return false; } };

  // JSON text of the plain data built here (objects with own data properties, arrays, strings,
  // finite numbers, booleans, null); undefined members are left out.
  function toJSONText(value) {
    if (value === null || typeof value === "boolean") { return "" + value; }
    if (typeof value === "number") { return value === value && value !== Infinity && value !== -Infinity ? "" + value : "null"; }
    if (typeof value === "string") { return jsonString(value); }
    const parts = [];
    if (isArray(value)) {
      for (let i = 0; i < value.length; i++) { append(parts, value[i] === undefined ? "null" : toJSONText(value[i])); }
      return "[" + joined(parts) + "]";
    }
    const names = keys(value);
    for (let i = 0; i < names.length; i++) {
      if (value[names[i]] !== undefined) { append(parts, jsonString(names[i]) + ":" + toJSONText(value[names[i]])); }
    }
    return "{" + joined(parts) + "}";
  }
  function joined(parts) {
    let text = "";
    for (let i = 0; i < parts.length; i++) { text += (i ? "," : "") + parts[i]; }
    return text;
  }

  // ---- WebIDL dictionary conversions ---------------------------------------------------------
  // Members are read once each, as bindings do. A member that is a dictionary must be an object,
  // null or undefined; a required member must be present.
  function dict(value, what) {
    if (value === undefined || value === null) { return {}; }
    if (typeof value !== "object" && typeof value !== "function") { throw typeError(what + " is not an object."); }
    return value;
  }
  function member(object, name, what, convert, required, fallback) {
    const value = object[name];
    if (value === undefined) {
      if (required) { throw typeError("Required member " + what + "." + name + " is missing."); }
      return fallback;
    }
    return convert(value, what + "." + name);
  }
  const str = (value) => `${value}`; // ToString: TypeError for a Symbol, as WebIDL's DOMString
  const bool = (value) => !!value;
  const long = (value) => +value | 0; // ToNumber then ToInt32: NaN and infinities give 0, as WebIDL's long
  const ulong = (value) => +value >>> 0;
  // A WebIDL sequence: the page's value is walked with its own iterator, as bindings do.
  function sequence(value, what, convert) {
    const method = value !== null && typeof value === "object" ? value[iterator] : undefined;
    if (typeof method !== "function") { throw typeError(what + " is not a sequence."); }
    const out = [], walk = apply(method, value, []);
    for (let step = walk.next(); !step.done; step = walk.next()) { append(out, convert(step.value, what + "[" + out.length + "]")); }
    return out;
  }
  const strings = (value, what) => sequence(value, what, str);
  // Extensions are open-ended: BufferSources become base64url, plain objects and arrays are walked.
  function extensionValue(value, what, depth) {
    if (value === null || typeof value !== "object") { return typeof value === "function" || typeof value === "symbol" || typeof value === "bigint" ? undefined : value; }
    if (depth > 8) { throw typeError(what + " is nested too deeply."); }
    if (isView(value) || isBuffer(value)) { return bufferSource(value, what); }
    if (isArray(value)) { return sequence(value, what, (item, w) => extensionValue(item, w, depth + 1)); }
    const out = {}, names = keys(value);
    for (let i = 0; i < names.length; i++) {
      define(out, names[i], { value: extensionValue(value[names[i]], what + "." + names[i], depth + 1), writable: true, enumerable: true, configurable: true });
    }
    return out;
  }
  const extensions = (value, what) => extensionValue(dict(value, what), what, 0);
  function descriptor(value, what) {
    const d = dict(value, what);
    return { id: member(d, "id", what, bufferSource, true), transports: member(d, "transports", what, strings, false), type: member(d, "type", what, str, true) };
  }
  const descriptors = (value, what) => sequence(value, what, descriptor);

  // PublicKeyCredentialCreationOptions -> PublicKeyCredentialCreationOptionsJSON (defaults filled).
  function creationOptionsJSON(value) {
    const o = dict(value, "publicKey");
    const selection = member(o, "authenticatorSelection", "publicKey", (v, w) => {
      const s = dict(v, w);
      return { authenticatorAttachment: member(s, "authenticatorAttachment", w, str), requireResidentKey: member(s, "requireResidentKey", w, bool, false, false),
        residentKey: member(s, "residentKey", w, str), userVerification: member(s, "userVerification", w, str, false, "preferred") };
    });
    const json = {
      rp: member(o, "rp", "publicKey", (v, w) => { const rp = dict(v, w); return { id: member(rp, "id", w, str), name: member(rp, "name", w, str, true) }; }, true),
      user: member(o, "user", "publicKey", (v, w) => {
        const user = dict(v, w);
        return { id: member(user, "id", w, bufferSource, true), name: member(user, "name", w, str, true), displayName: member(user, "displayName", w, str, true) };
      }, true),
      challenge: member(o, "challenge", "publicKey", bufferSource, true),
      pubKeyCredParams: member(o, "pubKeyCredParams", "publicKey", (v, w) => sequence(v, w, (p, pw) => {
        const param = dict(p, pw);
        return { type: member(param, "type", pw, str, true), alg: member(param, "alg", pw, long, true) };
      }), true),
      timeout: member(o, "timeout", "publicKey", ulong),
      excludeCredentials: member(o, "excludeCredentials", "publicKey", descriptors, false, []),
      authenticatorSelection: selection,
      hints: member(o, "hints", "publicKey", strings, false, []),
      attestation: member(o, "attestation", "publicKey", str, false, "none"),
      attestationFormats: member(o, "attestationFormats", "publicKey", strings, false, []),
      extensions: member(o, "extensions", "publicKey", extensions),
    };
    const idLength = (json.user.id.length * 3) >> 2;
    if (idLength < 1 || idLength > 64) { throw typeError("publicKey.user.id must be 1 to 64 bytes long."); }
    return json;
  }
  // PublicKeyCredentialRequestOptions -> PublicKeyCredentialRequestOptionsJSON (defaults filled).
  function requestOptionsJSON(value) {
    const o = dict(value, "publicKey");
    return {
      challenge: member(o, "challenge", "publicKey", bufferSource, true),
      timeout: member(o, "timeout", "publicKey", ulong),
      rpId: member(o, "rpId", "publicKey", str),
      allowCredentials: member(o, "allowCredentials", "publicKey", descriptors, false, []),
      userVerification: member(o, "userVerification", "publicKey", str, false, "preferred"),
      hints: member(o, "hints", "publicKey", strings, false, []),
      extensions: member(o, "extensions", "publicKey", extensions),
    };
  }

  // ---- Interfaces ----------------------------------------------------------------------------
  // Interface objects, prototypes and members with WebIDL's property attributes; an internal
  // WeakMap holds each object's state and is the brand check behind every member.
  const slots = new NativeWeakMap();
  function state(object, name) {
    const data = object !== null && typeof object === "object" ? apply(weakGet, slots, [object]) : undefined;
    if (!data || !data.is[name]) { throw typeError("Illegal invocation"); }
    return data;
  }
  // A new object of Interface; data.is names the interfaces it implements (its brands).
  function instance(Interface, names, data) {
    const object = create(Interface.prototype);
    data.is = create(null);
    for (let i = 0; i < names.length; i++) { data.is[names[i]] = true; }
    apply(weakSet, slots, [object, data]);
    return object;
  }
  function defineInterface(name, Parent, members, statics) {
    const Interface = { [name]: function () { throw typeError("Illegal constructor"); } }[name];
    const prototype = create(Parent ? Parent.prototype : O.prototype);
    if (Parent) { O.setPrototypeOf(Interface, Parent); }
    define(Interface, "prototype", { value: prototype, writable: false, enumerable: false, configurable: false });
    define(prototype, "constructor", { value: Interface, writable: true, enumerable: false, configurable: true });
    define(prototype, Symbol.toStringTag, { value: name, writable: false, enumerable: false, configurable: true });
    const copy = (target, source) => {
      const names = O.getOwnPropertyNames(source);
      for (let i = 0; i < names.length; i++) {
        const d = getDesc(source, names[i]);
        define(target, names[i], d.get ? { get: d.get, set: undefined, enumerable: true, configurable: true }
          : { value: d.value, writable: true, enumerable: true, configurable: true });
      }
    };
    copy(prototype, members || {});
    copy(Interface, statics || {});
    define(window, name, { value: Interface, writable: true, enumerable: false, configurable: true });
    return Interface;
  }
  const no = () => promiseResolve(false);

  const Credential = typeof window.Credential === "function" ? window.Credential : defineInterface("Credential", null, {
    get id() { return state(this, "Credential").id; },
    get type() { return state(this, "Credential").type; },
  }, { isConditionalMediationAvailable() { return no(); } });

  const AuthenticatorResponse = defineInterface("AuthenticatorResponse", null, {
    get clientDataJSON() { return state(this, "AuthenticatorResponse").clientDataJSON; },
  });
  const AuthenticatorAttestationResponse = defineInterface("AuthenticatorAttestationResponse", AuthenticatorResponse, {
    get attestationObject() { return state(this, "AuthenticatorAttestationResponse").attestationObject; },
    getTransports() { return copyArray(state(this, "AuthenticatorAttestationResponse").json.transports); },
    getAuthenticatorData() { return decode(state(this, "AuthenticatorAttestationResponse").json.authenticatorData); },
    getPublicKey() { const key = state(this, "AuthenticatorAttestationResponse").json.publicKey; return key !== null ? decode(key) : null; },
    getPublicKeyAlgorithm() { return state(this, "AuthenticatorAttestationResponse").json.publicKeyAlgorithm; },
  });
  const AuthenticatorAssertionResponse = defineInterface("AuthenticatorAssertionResponse", AuthenticatorResponse, {
    get authenticatorData() { return state(this, "AuthenticatorAssertionResponse").authenticatorData; },
    get signature() { return state(this, "AuthenticatorAssertionResponse").signature; },
    get userHandle() { return state(this, "AuthenticatorAssertionResponse").userHandle; },
  });

  // Client extension outputs are kept as JSON text (AuthenticationExtensionsClientOutputsJSON);
  // getClientExtensionResults() gives a new object each time, binary members as ArrayBuffers.
  function extensionResults(text) {
    const results = jsonParse(text), prf = own(own(results, "prf"), "results"), largeBlob = own(results, "largeBlob");
    decodeMembers(prf, "first", "second");
    decodeMembers(largeBlob, "blob");
    return results;
  }
  // Replaces the named own string members of object by their base64url-decoded ArrayBuffers.
  function decodeMembers(object, ...names) {
    for (let i = 0; i < names.length; i++) { if (typeof own(object, names[i]) === "string") { object[names[i]] = decode(object[names[i]]); } }
  }

  const PublicKeyCredential = defineInterface("PublicKeyCredential", Credential, {
    get rawId() { return state(this, "PublicKeyCredential").rawId; },
    get response() { return state(this, "PublicKeyCredential").response; },
    get authenticatorAttachment() { return state(this, "PublicKeyCredential").authenticatorAttachment; },
    getClientExtensionResults() { return extensionResults(state(this, "PublicKeyCredential").extensions); },
    // RegistrationResponseJSON or AuthenticationResponseJSON; absent optional members left out.
    toJSON() {
      const s = state(this, "PublicKeyCredential"), r = s.json, optional = (v) => (v === null ? undefined : v);
      const response = s.kind === "create"
        ? { clientDataJSON: r.clientDataJSON, authenticatorData: r.authenticatorData, transports: copyArray(r.transports),
          publicKey: optional(r.publicKey), publicKeyAlgorithm: r.publicKeyAlgorithm, attestationObject: r.attestationObject }
        : { clientDataJSON: r.clientDataJSON, authenticatorData: r.authenticatorData, signature: r.signature, userHandle: optional(r.userHandle) };
      return clean({ id: s.id, rawId: s.id, response: clean(response), authenticatorAttachment: optional(s.authenticatorAttachment),
        clientExtensionResults: jsonParse(s.extensions), type: "public-key" });
    },
  }, {
    isConditionalMediationAvailable() { return no(); },
    isUserVerifyingPlatformAuthenticatorAvailable() { return no(); },
    getClientCapabilities() {
      return promiseResolve({ conditionalCreate: false, conditionalGet: false, hybridTransport: false, passkeyPlatformAuthenticator: false,
        userVerifyingPlatformAuthenticator: false, relatedOrigins: false, signalAllAcceptedCredentials: false,
        signalCurrentUserDetails: false, signalUnknownCredential: false, "extension:credProps": true });
    },
    parseCreationOptionsFromJSON(options) { return parseJSONOptions(options, "create"); },
    parseRequestOptionsFromJSON(options) { return parseJSONOptions(options, "get"); },
  });

  // *OptionsJSON -> *Options: the same dictionaries with base64url members decoded (TypeError when
  // a required member is missing or not a string, EncodingError when it is not base64url).
  function parseJSONOptions(value, kind) {
    if (value === null || typeof value !== "object") { throw typeError("The options are not an object."); }
    const b64 = (v, what) => { if (typeof v !== "string") { throw typeError(what + " is not a string."); } return decode(v); };
    const list = (v, what) => sequence(v, what, (item, w) => {
      const d = dict(item, w);
      return clean({ id: member(d, "id", w, b64, true), type: member(d, "type", w, str, true), transports: member(d, "transports", w, strings) });
    });
    const extensionInputs = (v, what) => { // prf and largeBlob inputs are binary
      const ext = extensionValue(dict(v, what), what, 0), prf = own(ext, "prf"), byCredential = own(prf, "evalByCredential");
      decodeMembers(own(prf, "eval"), "first", "second");
      const ids = byCredential ? keys(byCredential) : [];
      for (let i = 0; i < ids.length; i++) { decodeMembers(byCredential[ids[i]], "first", "second"); }
      decodeMembers(own(ext, "largeBlob"), "write");
      return ext;
    };
    const common = { challenge: member(value, "challenge", "options", b64, true), timeout: member(value, "timeout", "options", ulong),
      hints: member(value, "hints", "options", strings, false, []), extensions: member(value, "extensions", "options", extensionInputs) };
    if (kind === "get") {
      return clean({ challenge: common.challenge, timeout: common.timeout, rpId: member(value, "rpId", "options", str),
        allowCredentials: member(value, "allowCredentials", "options", list, false, []),
        userVerification: member(value, "userVerification", "options", str, false, "preferred"), hints: common.hints, extensions: common.extensions });
    }
    return clean({
      rp: member(value, "rp", "options", (v, w) => { const rp = dict(v, w); return clean({ id: member(rp, "id", w, str), name: member(rp, "name", w, str, true) }); }, true),
      user: member(value, "user", "options", (v, w) => {
        const user = dict(v, w);
        return { id: member(user, "id", w, b64, true), name: member(user, "name", w, str, true), displayName: member(user, "displayName", w, str, true) };
      }, true),
      challenge: common.challenge,
      pubKeyCredParams: member(value, "pubKeyCredParams", "options", (v, w) => sequence(v, w, (p, pw) => {
        const param = dict(p, pw);
        return { type: member(param, "type", pw, str, true), alg: member(param, "alg", pw, long, true) };
      }), true),
      timeout: common.timeout,
      excludeCredentials: member(value, "excludeCredentials", "options", list, false, []),
      authenticatorSelection: member(value, "authenticatorSelection", "options", (v, w) => extensionValue(dict(v, w), w, 0)),
      hints: common.hints,
      attestation: member(value, "attestation", "options", str, false, "none"),
      attestationFormats: member(value, "attestationFormats", "options", strings, false, []),
      extensions: common.extensions,
    });
  }

  // ---- Credentials from native answers -------------------------------------------------------
  // The native answer's members are checked and re-encoded; nothing of it is kept as it came.
  function credentialFrom(answer, kind) {
    const c = own(answer, "credential"), r = own(c, "response");
    const text = (name, optional) => {
      const value = own(r, name);
      return optional && (value === null || value === undefined) ? null : encode(new NativeUint8Array(decode(value)));
    };
    let response, json;
    if (kind === "create") {
      const given = own(r, "transports"), transports = [], algorithm = own(r, "publicKeyAlgorithm");
      if (isArray(given)) { for (let i = 0; i < given.length; i++) { if (typeof given[i] === "string") { append(transports, given[i]); } } }
      json = { clientDataJSON: text("clientDataJSON"), authenticatorData: text("authenticatorData"), transports, publicKey: text("publicKey", true),
        publicKeyAlgorithm: typeof algorithm === "number" ? algorithm | 0 : 0, attestationObject: text("attestationObject") };
      response = instance(AuthenticatorAttestationResponse, ["AuthenticatorAttestationResponse", "AuthenticatorResponse"],
        { clientDataJSON: decode(json.clientDataJSON), attestationObject: decode(json.attestationObject), json });
    } else {
      json = { clientDataJSON: text("clientDataJSON"), authenticatorData: text("authenticatorData"), signature: text("signature"), userHandle: text("userHandle", true) };
      response = instance(AuthenticatorAssertionResponse, ["AuthenticatorAssertionResponse", "AuthenticatorResponse"],
        { clientDataJSON: decode(json.clientDataJSON), authenticatorData: decode(json.authenticatorData), signature: decode(json.signature),
          userHandle: json.userHandle === null ? null : decode(json.userHandle), json });
    }
    const id = encode(new NativeUint8Array(decode(own(c, "rawId"))));
    const attachment = own(c, "authenticatorAttachment"), extensions = own(c, "clientExtensionResults");
    return instance(PublicKeyCredential, ["PublicKeyCredential", "Credential"], { id, type: "public-key", rawId: decode(id), response, kind, json,
      authenticatorAttachment: typeof attachment === "string" ? attachment : null,
      extensions: toJSONText(extensions !== null && typeof extensions === "object" && !isArray(extensions) ? extensions : {}) });
  }

  // ---- The relay channel ---------------------------------------------------------------------
  const REQUEST = "webviewhost-webauthn-request", RESPONSE = "webviewhost-webauthn-response";
  const pending = create(null); // id -> { kind, resolve, reject, done }
  const idBytes = new NativeUint8Array(12);
  apply(getRandomValues, cryptoObject, [idBytes]);
  const idPrefix = encode(idBytes) + ".";
  let counter = 0;
  // (Init dictionaries without a prototype: the page's Object.prototype getters are not read.)
  const send = (message) => apply(dispatch, doc, [new NativeCustomEvent(REQUEST, { __proto__: null, detail: toJSONText(message) })]);

  apply(addListener, doc, [RESPONSE, function (event) {
    let detail, answer;
    try { detail = apply(eventDetail, event, []); answer = typeof detail === "string" ? jsonParse(detail) : null; } catch (e) { return; }
    const id = own(answer, "id"), call = typeof id === "string" ? pending[id] : undefined;
    if (!call) { return; }
    delete pending[id];
    call.done();
    if (own(answer, "ok") === true) {
      let credential;
      try { credential = credentialFrom(answer, call.kind); } catch (e) { call.reject(domError("The authenticator's answer could not be read.", "UnknownError")); return; }
      call.resolve(credential);
    } else {
      const error = own(answer, "error"), name = own(error, "name"), message = own(error, "message");
      call.reject(domError(typeof message === "string" ? message : "The operation failed.", typeof name === "string" ? name : "UnknownError"));
    }
  }, true]);

  const MEDIATION = { __proto__: null, silent: true, optional: true, conditional: true, required: true };
  // One create() or get(): converts and checks as CredentialsContainer does (every failure a
  // rejected promise, as for any promise-returning WebIDL operation), then sends the request.
  function request(kind, container, options) {
    try {
      if (container !== credentials) { throw typeError("Illegal invocation"); }
      const o = dict(options, "options");
      const mediation = member(o, "mediation", "options", str, false, "optional");
      if (!MEDIATION[mediation]) { throw typeError("options.mediation is not a CredentialMediationRequirement."); }
      const publicKey = member(o, "publicKey", "options", kind === "create" ? creationOptionsJSON : requestOptionsJSON);
      const signal = o.signal;
      if (signal !== undefined) { apply(signalAborted, signal, []); } // the getter is the AbortSignal check (TypeError)
      if (signal !== undefined && apply(signalAborted, signal, [])) { return rejected(apply(signalReason, signal, [])); }
      if (publicKey === undefined) { return rejected(domError("Only public key credentials are supported.", "NotSupportedError")); }
      if (kind === "create" && (o.password !== undefined || o.federated !== undefined || o.identity !== undefined || o.otp !== undefined || o.digital !== undefined)) {
        return rejected(domError("Only one type of credential can be created at a time.", "NotSupportedError"));
      }
      if (mediation === "conditional") { return rejected(domError("Conditional mediation is not available.", "NotSupportedError")); }
      const id = idPrefix + ++counter;
      return new NativePromise((resolve, reject) => {
        const onAbort = () => { // rejects at once; the native side is told to stop
          if (!pending[id]) { return; }
          delete pending[id];
          send({ id, kind: "abort" });
          reject(apply(signalReason, signal, []));
        };
        const done = () => { if (signal !== undefined) { apply(removeListener, signal, ["abort", onAbort]); } };
        pending[id] = { kind, resolve, reject, done };
        if (signal !== undefined) { apply(addListener, signal, ["abort", onAbort, { __proto__: null, once: true }]); }
        send({ id, kind, options: publicKey, mediation });
      });
    } catch (error) {
      return rejected(error);
    }
  }

  const CredentialsContainer = defineInterface("CredentialsContainer", null, {
    get(options = {}) { return request("get", this, options); },
    create(options = {}) { return request("create", this, options); },
    store(credential) {
      if (this !== credentials) { return rejected(typeError("Illegal invocation")); }
      const data = credential !== null && typeof credential === "object" ? apply(weakGet, slots, [credential]) : undefined;
      if (!data || !data.is.Credential) { return rejected(typeError("The argument is not a Credential.")); }
      return rejected(domError("Public key credentials cannot be stored.", "NotSupportedError"));
    },
    preventSilentAccess() { return this === credentials ? promiseResolve(undefined) : rejected(typeError("Illegal invocation")); },
  });
  const credentials = create(CredentialsContainer.prototype);
  // navigator.credentials: a [SameObject] readonly attribute, so an accessor on Navigator.prototype.
  define(Navigator.prototype, "credentials", {
    get: getDesc({ get credentials() { if (this !== nav) { throw typeError("Illegal invocation"); } return credentials; } }, "credentials").get,
    set: undefined, enumerable: true, configurable: true,
  });
})();
"""#

    /// The library's own script world (`webviewhost-webauthn`), top frame, at document start: the
    /// relay between the page's events and the message channel, adding the frame's origin and its
    /// user activation as that world sees them.
    static let relay = #"""
// The relay between webauthn-page.js and the native side. Injected at document start into the top
// frame's isolated script world "webviewhost-webauthn": page scripts share the DOM with it but
// cannot see or change its globals, so the origin it reports is the frame's own, never the page's
// word, and its message handler is out of the page's reach.
//
// Page world -> here: a "webviewhost-webauthn-request" CustomEvent on document whose detail is a
// JSON string {id, kind: "create"|"get"|"abort", options}. Here -> native: a JSON string
// {id, kind, options, origin, userActivation, stickyActivation} posted to webviewhostWebAuthn; its promise brings the
// reply (JSON text without the id), sent back as a "webviewhost-webauthn-response" CustomEvent on
// document with the id added. The reply to an abort is not sent back.
(function () {
  "use strict";
  if (window.top !== window) { return; }
  const handlers = window.webkit && window.webkit.messageHandlers;
  const handler = handlers && handlers.webviewhostWebAuthn;
  if (!handler) { return; }
  const KINDS = { __proto__: null, create: true, get: true, abort: true };

  function respond(id, answer) {
    answer.id = id;
    document.dispatchEvent(new CustomEvent("webviewhost-webauthn-response", { detail: JSON.stringify(answer) }));
  }
  const failure = (id, message) => respond(id, { ok: false, error: { name: "UnknownError", message: String(message) } });

  document.addEventListener("webviewhost-webauthn-request", (event) => {
    // Only a string detail is taken: nothing of the page runs while it is read, and the page cannot
    // change it afterwards. (WebKit 2.50 hands an object detail of the page world to this world as
    // a structured-clone copy, reading the page's getters to make it: not used.)
    const detail = event.detail;
    if (typeof detail !== "string") { return; }
    let request;
    try { request = JSON.parse(detail); } catch (e) { return; }
    if (request === null || typeof request !== "object") { return; }
    const { id, kind, options } = request;
    if (typeof id !== "string" || id.length === 0 || id.length > 256 || !KINDS[kind]) { return; }
    if (kind !== "abort" && (options === null || typeof options !== "object" || Array.isArray(options))) { return; }
    // Read now, while the page's call is on the stack: the activation is the page's current one.
    // Sticky too: whether the person interacted with the page at all (a page that waits for its
    // server between the click and `create` has lost the transient activation by then).
    const activation = navigator.userActivation ? navigator.userActivation.isActive : null;
    const sticky = navigator.userActivation ? navigator.userActivation.hasBeenActive : null;
    const message = JSON.stringify(kind === "abort" ? { id, kind, origin: location.origin, userActivation: activation, stickyActivation: sticky }
      : { id, kind, options, origin: location.origin, userActivation: activation, stickyActivation: sticky });
    let reply;
    try { reply = handler.postMessage(message); } catch (e) { if (kind !== "abort") { failure(id, e && e.message); } return; }
    if (kind === "abort") { return; }
    Promise.resolve(reply).then((text) => {
      let answer;
      try { answer = JSON.parse(text); } catch (e) { answer = null; }
      if (answer === null || typeof answer !== "object" || Array.isArray(answer)) { failure(id, "The native side gave no answer."); return; }
      respond(id, answer);
    }, (error) => failure(id, error && error.message !== undefined ? error.message : error));
  }, true);
})();
"""#
}
