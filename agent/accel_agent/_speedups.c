/*
 * accel_agent._speedups: the few per-message steps that Python code cannot
 * make cheap enough (docs/per-call-cost.md, "The compiled fast path").
 *
 * Optional, as coverage.py's CTracer and wrapt's _wrappers are: the wheel
 * builds it where a C compiler is found, and every caller keeps a pure-Python
 * path that does the same (accel_agent/speedups.py says which is in use).
 * Nothing here knows an algorithm or a key: it moves objects between
 * pycryptodome's call shapes and OpenSSL-backed callables the Python code
 * chose, and decides nothing a Python path does not decide the same way.
 * The one piece of arithmetic, inverse_mod, is given only blinded numbers by
 * its one caller (providers/ecc.py).
 *
 *   HashCore     base class of the agent's hash objects: a _hashlib object in
 *                a C slot, digest() and hexdigest() without a Python frame;
 *                hash_class() makes its per-algorithm subclasses, which also
 *                subclass pycryptodome's class and have a __dict__ and weak
 *                references, as native objects do
 *   HashNew      a hash module's new(data): the common shape (one bytes
 *                argument, provider resolved) in C, and with add_variant()
 *                new(data, truncate="256") and the like (SHA-512's
 *                truncations); anything else to the Python new it was given
 *   GcmNew       AES.new(key, AES.MODE_GCM, nonce=nonce) with bytes, in C
 *                (and, add_shape(), the other modes' new(key, mode,
 *                nonce=nonce), new(key, mode, iv=iv) or new(key, mode):
 *                ECB, CBC, OFB, CTR, CCM, OCB, KW, KWP);
 *                anything else to the Python new it was given
 *   EcbMethod    an ECB object's encrypt/decrypt of bytes: its context's
 *                update() called from C, anything else to the Python method
 *   KeywordNew   a ChaCha module's new(key=key, nonce=nonce) with bytes: to
 *                the Python flat builder, anything else to the general new
 *   seal_split   an AEAD encrypt() whose ct || tag is returned as (ct, tag)
 *                without copying the ciphertext
 *   open_joined  an AEAD decrypt() of ct and tag joined in one allocation
 *   stream_update  a streaming context's update() without its result copy
 *   CounterStream  CTR with any counter pycryptodome takes (little-endian,
 *                a suffix, a field that wraps inside the block): counter
 *                blocks made here, encrypted in bulk by the ECB update() it
 *                was given, XORed into the data
 *   cfb_segments_decrypt  CFB decryption with any segment size: every
 *                segment's shift register encrypted by one ECB context
 *   inverse_mod  a modular inverse for an odd modulus, in variable time (its
 *                caller blinds what it passes)
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#include <string.h>
#include <stdint.h>

#define AEAD_TAG_SIZE 16

static PyObject *str_digest;     /* "digest" */
static PyObject *str_hexdigest;  /* "hexdigest" */
static PyObject *str_slot_provider;  /* "provider": registry.Slot's hot-path read */
static PyObject *str_nonce;      /* "nonce" */
static PyObject *str_update;     /* "update" */
static PyObject *str_update_into;  /* "update_into" */
static PyObject *empty_tuple;
static PyObject *long_tag_size;  /* 16: the token a fresh GCM object starts with */

/* ------------------------------------------------------------------ HashCore */

typedef struct {
    PyObject_HEAD
    PyObject *h;  /* the OpenSSL hash object (_hashlib.HASH) */
} HashCore;

/* HashCore itself is not a GC type: an OpenSSL hash object refers to no
   Python object. The classes hash_class() makes from it, which have an
   instance dictionary, are. */
static void
HashCore_dealloc(HashCore *self)
{
    Py_CLEAR(self->h);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *
HashCore_call_inner(HashCore *self, PyObject *name)
{
    PyObject *h = self->h;
    if (h == NULL) {
        PyErr_SetString(PyExc_AttributeError, "_h");
        return NULL;
    }
    Py_INCREF(h);  /* the call may run code that rebinds _h */
    PyObject *result = PyObject_CallMethodNoArgs(h, name);
    Py_DECREF(h);
    return result;
}

static PyObject *
HashCore_digest(HashCore *self, PyObject *Py_UNUSED(ignored))
{
    return HashCore_call_inner(self, str_digest);
}

static PyObject *
HashCore_hexdigest(HashCore *self, PyObject *Py_UNUSED(ignored))
{
    return HashCore_call_inner(self, str_hexdigest);
}

static PyMethodDef HashCore_methods[] = {
    {"digest", (PyCFunction)HashCore_digest, METH_NOARGS,
     "The digest of everything hashed so far (the OpenSSL object's)."},
    {"hexdigest", (PyCFunction)HashCore_hexdigest, METH_NOARGS,
     "digest(), as hexadecimal text."},
    {NULL, NULL, 0, NULL},
};

static PyMemberDef HashCore_members[] = {
    {"_h", T_OBJECT_EX, offsetof(HashCore, h), 0, "the OpenSSL hash object"},
    {NULL, 0, 0, 0, NULL},
};

static PyTypeObject HashCore_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "accel_agent._speedups.HashCore",
    .tp_basicsize = sizeof(HashCore),
    .tp_dealloc = (destructor)HashCore_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_doc = "Base of the agent's hash objects: the OpenSSL object in _h; digest() in C.",
    .tp_methods = HashCore_methods,
    .tp_members = HashCore_members,
    .tp_new = PyType_GenericNew,
};

/* hash_class(qualified_name, native_cls) -> a class for the agent's objects of one hash

   Its bases are native_cls (pycryptodome's class: isinstance() holds) and
   HashCore (its layout: _h in a C slot, digest() in C). Its objects are
   shaped as native ones: an instance dictionary (attribute assignment) and a
   weak reference list. A class made by a class statement from these bases
   would be freed through subtype_dealloc, which handles cases (finalizers,
   slots added later) these objects never have; the dealloc below does only
   what they need, a tenth of a 64-byte SHA-256 cheaper. The objects are
   tracked by the garbage collector, as native ones are: their dictionary can
   hold a cycle. The caller sets the class's methods and attributes. */
typedef struct {
    HashCore core;
    PyObject *dict;      /* the instance dictionary, made on first use */
    PyObject *weaklist;  /* weak references to this object */
} HashObject;

static void
HashObject_dealloc(HashObject *self)
{
    PyTypeObject *type = Py_TYPE(self);
    PyObject_GC_UnTrack(self);
    if (self->weaklist != NULL) {
        PyObject_ClearWeakRefs((PyObject *)self);
    }
    Py_CLEAR(self->dict);
    Py_CLEAR(self->core.h);
    type->tp_free((PyObject *)self);
    Py_DECREF(type);  /* instances of heap types own a reference to it */
}

static int
HashObject_traverse(HashObject *self, visitproc visit, void *arg)
{
    Py_VISIT(Py_TYPE(self));
    Py_VISIT(self->dict);
    Py_VISIT(self->core.h);
    return 0;
}

static int
HashObject_clear(HashObject *self)
{
    Py_CLEAR(self->dict);
    Py_CLEAR(self->core.h);
    return 0;
}

static PyMemberDef HashObject_members[] = {
    {"__dictoffset__", T_PYSSIZET, offsetof(HashObject, dict), READONLY, NULL},
    {"__weaklistoffset__", T_PYSSIZET, offsetof(HashObject, weaklist), READONLY, NULL},
    {NULL, 0, 0, 0, NULL},
};

/* Its own __dict__ descriptor: the one inherited from native_cls is for the
   native layout. */
static PyGetSetDef HashObject_getset[] = {
    {"__dict__", PyObject_GenericGetDict, PyObject_GenericSetDict, NULL, NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyObject *
hash_class(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2 || !PyUnicode_Check(args[0]) || !PyType_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError, "hash_class(qualified_name: str, native_cls: type)");
        return NULL;
    }
    Py_ssize_t size;
    const char *text = PyUnicode_AsUTF8AndSize(args[0], &size);
    if (text == NULL) {
        return NULL;
    }
#if PY_VERSION_HEX >= 0x030B0000
    const char *name = text;  /* copied into the type (its _ht_tpname) */
#else
    /* 3.9 and 3.10 keep spec->name as the type's tp_name: it must outlive the
       class, so it is never freed (a class is made once per patched module). */
    char *name = PyMem_Malloc(size + 1);
    if (name == NULL) {
        return PyErr_NoMemory();
    }
    memcpy(name, text, size + 1);
#endif
    PyType_Slot slots[] = {
        {Py_tp_dealloc, (void *)HashObject_dealloc},
        {Py_tp_traverse, (void *)HashObject_traverse},
        {Py_tp_clear, (void *)HashObject_clear},
        {Py_tp_members, HashObject_members},
        {Py_tp_getset, HashObject_getset},
        {Py_tp_new, (void *)PyType_GenericNew},
        {0, NULL},
    };
    PyType_Spec spec = {
        .name = name,
        .basicsize = sizeof(HashObject),
        /* Subclassable, as native pycryptodome's classes are. A subclass made
           by a class statement is freed through subtype_dealloc, which leaves
           the dictionary, the weak references and the type's reference to
           this dealloc (its base is a heap type that has them). */
        .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
        .slots = slots,
    };
    PyObject *bases = PyTuple_Pack(2, args[1], (PyObject *)&HashCore_Type);
    PyObject *type = bases ? PyType_FromSpecWithBases(&spec, bases) : NULL;
    Py_XDECREF(bases);
#if PY_VERSION_HEX < 0x030B0000
    if (type == NULL) {
        PyMem_Free(name);
    }
#endif
    return type;
}

/* The attributes functools.update_wrapper sets (__wrapped__, __doc__, ...)
   live in an instance dictionary, as on a Python function; like a function,
   the object can be weakly referenced (weakreflist). */
#define CALLABLE_WITH_DICT_FIELDS \
    PyObject *fallback;            \
    PyObject *dict;                \
    PyObject *weakreflist;         \
    vectorcallfunc vectorcall

/* __reduce__ of a module's new() served in C: the name it is found by, as a
   Python function is pickled (and copied) by reference. pickle looks the
   name up in the object's __module__ and checks it finds this very object. */
static PyObject *
callable_reduce(PyObject *self, PyObject *Py_UNUSED(ignored))
{
    PyObject *name = PyObject_GetAttrString(self, "__qualname__");
    if (name == NULL && PyErr_ExceptionMatches(PyExc_AttributeError)) {
        /* Not named after a module's function: as before it had __reduce__. */
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "cannot pickle '%.200s' object", Py_TYPE(self)->tp_name);
    }
    return name;
}

#define CALLABLE_REDUCE_METHOD                                                    \
    {"__reduce__", (PyCFunction)callable_reduce, METH_NOARGS,                      \
     "the qualified name: pickled and copied by reference, as a function is"}

static void
callable_clear_weakrefs(PyObject *self, PyObject *weakreflist)
{
    if (weakreflist != NULL) {
        PyObject_ClearWeakRefs(self);
    }
}

/* The Python function a front hands every other call to (NULL only after
   the garbage collector cleared a front caught in a cycle). */
static PyObject *
call_fallback(PyObject *fallback, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    if (fallback == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "this accel-agent front was cleared");
        return NULL;
    }
    return PyObject_Vectorcall(fallback, args, nargsf, kwnames);
}

/* ------------------------------------------------------------------ HashNew */

typedef struct {
    PyObject_HEAD
    CALLABLE_WITH_DICT_FIELDS;
    PyObject *cls;   /* the hash object's class, a subclass of HashCore */
    PyObject *ctor;  /* the provider's constructor; None until the slot resolved */
    PyObject *slot;  /* the registry slot (kept for its owner; calls are counted here) */
    Py_ssize_t calls;  /* calls served by the fast path (registry.Slot.counters adds them) */
    /* add_variant(): new(data, value) or new(data, <keyword>=value) with an
       exact str value that is a key of variants is served by that HashNew
       (SHA-512's truncations); NULL until a variant is added */
    PyObject *variant_keyword;
    PyObject *variants;  /* value -> HashNew */
} HashNew;

static PyTypeObject HashNew_Type;

/* A new object of front's class around ctor(data), or NULL with front's
   ctor unset (*served = 0: the caller takes the fallback) or an error. */
static PyObject *
HashNew_make(HashNew *front, PyObject *data, int *served)
{
    PyObject *ctor = front->ctor;
    *served = ctor != NULL && ctor != Py_None;
    if (!*served) {
        return NULL;
    }
    PyTypeObject *cls = (PyTypeObject *)front->cls;
    Py_INCREF(ctor);  /* another thread may reset front->ctor meanwhile */
    PyObject *inner = PyObject_CallOneArg(ctor, data);
    Py_DECREF(ctor);
    if (inner == NULL) {
        return NULL;
    }
    PyObject *obj = cls->tp_alloc(cls, 0);
    if (obj == NULL) {
        Py_DECREF(inner);
        return NULL;
    }
    ((HashCore *)obj)->h = inner;
    front->calls++;
    return obj;
}

/* The variant new(data, value) / new(data, keyword=value) names, or NULL. */
static HashNew *
HashNew_variant(HashNew *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    PyObject *value;
    if (nargs == 2 && kwnames == NULL) {
        value = args[1];
    }
    else if (nargs == 1 && kwnames != NULL && PyTuple_GET_SIZE(kwnames) == 1) {
        PyObject *name = PyTuple_GET_ITEM(kwnames, 0);
        if (name != self->variant_keyword
            && PyUnicode_Compare(name, self->variant_keyword) != 0) {
            return NULL;  /* (a str compare raises nothing) */
        }
        value = args[1];
    }
    else {
        return NULL;
    }
    if (!PyUnicode_CheckExact(value)) {
        return NULL;
    }
    PyObject *variant = PyDict_GetItemWithError(self->variants, value);
    if (variant == NULL) {
        PyErr_Clear();  /* a str key: only a memory error, and the fallback decides */
    }
    return (HashNew *)variant;  /* borrowed: self->variants holds it */
}

static PyObject *
HashNew_vectorcall(HashNew *self, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    if (nargs >= 1 && PyBytes_CheckExact(args[0])) {
        HashNew *front = NULL;
        if (nargs == 1 && kwnames == NULL) {
            front = self;
        }
        else if (self->variants != NULL) {
            front = HashNew_variant(self, args, nargs, kwnames);
        }
        if (front != NULL) {
            Py_INCREF(front);  /* add_variant() may replace it meanwhile */
            int served;
            PyObject *obj = HashNew_make(front, args[0], &served);
            Py_DECREF(front);
            if (served) {
                return obj;
            }
        }
    }
    return call_fallback(self->fallback, args, nargsf, kwnames);
}

static PyObject *
HashNew_add_variant(HashNew *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3 || !PyUnicode_CheckExact(args[0]) || !PyUnicode_CheckExact(args[1])
        || Py_TYPE(args[2]) != &HashNew_Type) {
        PyErr_SetString(PyExc_TypeError,
                        "add_variant(keyword: str, value: str, variant: HashNew)");
        return NULL;
    }
    if (self->variant_keyword != NULL
        && PyUnicode_Compare(self->variant_keyword, args[0]) != 0) {
        PyErr_SetString(PyExc_ValueError, "add_variant(): one keyword per front");
        return NULL;
    }
    if (self->variants == NULL) {
        self->variants = PyDict_New();
        if (self->variants == NULL) {
            return NULL;
        }
        Py_INCREF(args[0]);
        self->variant_keyword = args[0];
    }
    if (PyDict_SetItem(self->variants, args[1], args[2]) < 0) {
        return NULL;
    }
    Py_RETURN_NONE;
}

static PyMethodDef HashNew_methods[] = {
    {"add_variant", (PyCFunction)(void (*)(void))HashNew_add_variant, METH_FASTCALL,
     "add_variant(keyword, value, variant): new(data, value) and new(data, keyword=value) "
     "with an exact str value served by variant (another HashNew), while its ctor is set"},
    CALLABLE_REDUCE_METHOD,
    {NULL, NULL, 0, NULL},
};

static PyObject *
HashNew_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    PyObject *cls, *slot, *fallback;
    static char *kwlist[] = {"cls", "slot", "fallback", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O!OO:HashNew", kwlist,
                                     &PyType_Type, &cls, &slot, &fallback)) {
        return NULL;
    }
    if (!PyType_IsSubtype((PyTypeObject *)cls, &HashCore_Type)) {
        PyErr_SetString(PyExc_TypeError, "HashNew: cls must be a subclass of HashCore");
        return NULL;
    }
    if (!PyCallable_Check(fallback)) {
        PyErr_SetString(PyExc_TypeError, "HashNew: fallback must be callable");
        return NULL;
    }
    HashNew *self = (HashNew *)type->tp_alloc(type, 0);
    if (self == NULL) {
        return NULL;
    }
    Py_INCREF(cls);
    self->cls = cls;
    Py_INCREF(slot);
    self->slot = slot;
    Py_INCREF(fallback);
    self->fallback = fallback;
    Py_INCREF(Py_None);
    self->ctor = Py_None;
    self->vectorcall = (vectorcallfunc)HashNew_vectorcall;
    return (PyObject *)self;
}

static int
HashNew_traverse(HashNew *self, visitproc visit, void *arg)
{
    Py_VISIT(self->fallback);
    Py_VISIT(self->dict);
    Py_VISIT(self->cls);
    Py_VISIT(self->ctor);
    Py_VISIT(self->slot);
    Py_VISIT(self->variant_keyword);
    Py_VISIT(self->variants);
    return 0;
}

static int
HashNew_clear(HashNew *self)
{
    Py_CLEAR(self->fallback);
    Py_CLEAR(self->dict);
    Py_CLEAR(self->cls);
    Py_CLEAR(self->ctor);
    Py_CLEAR(self->slot);
    Py_CLEAR(self->variant_keyword);
    Py_CLEAR(self->variants);
    return 0;
}

static void
HashNew_dealloc(HashNew *self)
{
    PyObject_GC_UnTrack(self);
    callable_clear_weakrefs((PyObject *)self, self->weakreflist);
    HashNew_clear(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyMemberDef HashNew_members[] = {
    {"ctor", T_OBJECT, offsetof(HashNew, ctor), 0,
     "the provider's constructor the fast path calls; None: every call takes the fallback"},
    {"fallback", T_OBJECT, offsetof(HashNew, fallback), READONLY, "the general new()"},
    {"calls", T_PYSSIZET, offsetof(HashNew, calls), 0, "calls the fast path served"},
    {NULL, 0, 0, 0, NULL},
};

static PyGetSetDef callable_getset[] = {
    {"__dict__", PyObject_GenericGetDict, PyObject_GenericSetDict, NULL, NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject HashNew_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "accel_agent._speedups.HashNew",
    .tp_basicsize = sizeof(HashNew),
    .tp_dealloc = (destructor)HashNew_dealloc,
    .tp_vectorcall_offset = offsetof(HashNew, vectorcall),
    .tp_call = PyVectorcall_Call,
    .tp_getattro = PyObject_GenericGetAttr,
    .tp_setattro = PyObject_GenericSetAttr,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_doc = "HashNew(cls, slot, fallback): a hash module's new(), its common shape in C.",
    .tp_traverse = (traverseproc)HashNew_traverse,
    .tp_clear = (inquiry)HashNew_clear,
    .tp_members = HashNew_members,
    .tp_methods = HashNew_methods,
    .tp_getset = callable_getset,
    .tp_dictoffset = offsetof(HashNew, dict),
    .tp_weaklistoffset = offsetof(HashNew, weakreflist),
    .tp_new = HashNew_new,
};

/* ------------------------------------------------------------------ GcmNew */

#define GCM_MAX_KEY_SIZES 4  /* AES has three */
#define GCM_MAX_SHAPES 12    /* modes added by add_shape(): AES has eight (ECB, CBC, OFB, CTR,
                                CCM, OCB, KW, KWP) */

/* Placeholders in an AeadShape's values: what each call puts there. */
static PyObject *placeholder_provider;  /* the slot's provider */
static PyObject *placeholder_key;       /* the key given */
static PyObject *placeholder_nonce;     /* the nonce given */
static PyObject *placeholder_keywords;  /* new()'s keywords: a new {"nonce": nonce} */
/* A value (FRESH, cls, fields, values): a fresh cls object made per call, its
   fields set to values (placeholders filled), as CTR's counter block. */
static PyObject *placeholder_fresh;

/* A fresh object of one mode, as its Python path lays it out: the class, the
   attribute names in the order that path stores them, and the values
   (placeholders for the per-call ones), per nonce size. */
typedef struct {
    long mode;
    int takes_nonce;   /* new(key, mode, <keyword>=nonce); else new(key, mode) */
    PyObject *keyword; /* that keyword (interned): "nonce", or "iv" for CBC, CFB and OFB */
    PyObject *cls;
    PyObject *slot;    /* its provider is read per call */
    PyObject *fields;  /* tuple of names */
    /* tuple of value tuples (each as long as fields): one per nonce size from
       nonce_min to nonce_max, or exactly one for a shape without a nonce */
    PyObject *values;
    Py_ssize_t nonce_min, nonce_max;
} AeadShape;

typedef struct {
    PyObject_HEAD
    CALLABLE_WITH_DICT_FIELDS;
    PyObject *cls;         /* GcmCipher */
    PyObject *backing;     /* what every GcmCipher of this module gets as _backing */
    PyObject *slot;        /* backing.slot: its provider is read per call */
    PyObject *unresolved;  /* the registry's "not decided yet" marker */
    PyObject *fields;      /* the names of a fresh object's attributes (_aes_gcm.FRESH_FIELDS) */
    /* The shape served, as the Python records give it (targets/pycryptodome/aes.py):
       the mode's constant, the cipher's key sizes, the nonce sizes OpenSSL takes. */
    long mode;
    Py_ssize_t key_sizes[GCM_MAX_KEY_SIZES];
    Py_ssize_t n_key_sizes;
    Py_ssize_t nonce_min, nonce_max;
    /* The other modes' shapes, new(key, mode, nonce=nonce) or new(key, mode),
       added by add_shape() once each mode's code is loaded. An entry is
       filled before n_shapes counts it, and never changed after. */
    AeadShape shapes[GCM_MAX_SHAPES];
    Py_ssize_t n_shapes;
} GcmNew;

/* The values for the names in fields, in its order: backing, provider, key, nonce, one_shot. */
#define GCM_FRESH_FIELDS 5

static int
is_key_size(GcmNew *self, Py_ssize_t size)
{
    for (Py_ssize_t i = 0; i < self->n_key_sizes; i++) {
        if (self->key_sizes[i] == size) {
            return 1;
        }
    }
    return 0;
}

/* Whether the call's keyword is the shape's (interned; a call's may not be). */
static int
is_keyword(PyObject *name, PyObject *expected)
{
    return name == expected
           || (PyUnicode_CheckExact(name) && PyUnicode_Compare(name, expected) == 0);
}

/* The slot's provider when it is one (new reference), NULL with no error
   when the slot is native or undecided, NULL with an error on failure. */
static PyObject *
resolved_provider(GcmNew *self, PyObject *slot)
{
    PyObject *provider = PyObject_GetAttr(slot, str_slot_provider);
    if (provider != NULL && (provider == Py_None || provider == self->unresolved)) {
        Py_DECREF(provider);
        return NULL;
    }
    return provider;
}

/* A fresh cls object, its fields set in order to values, the placeholders
   filled; a FRESH value is made the same way (add_shape() allows one level). */
static PyObject *
fresh_object(PyObject *cls_object, PyObject *fields, PyObject *values, PyObject *provider,
             PyObject *key, PyObject *nonce, PyObject *keyword)
{
    PyTypeObject *cls = (PyTypeObject *)cls_object;
    PyObject *made_object = cls->tp_new(cls, empty_tuple, NULL);
    if (made_object == NULL) {
        return NULL;
    }
    Py_ssize_t count = PyTuple_GET_SIZE(fields);
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *value = PyTuple_GET_ITEM(values, i);
        PyObject *made = NULL;
        if (value == placeholder_provider) {
            value = provider;
        }
        else if (value == placeholder_key) {
            value = key;
        }
        else if (value == placeholder_nonce) {
            value = nonce;
        }
        else if (value == placeholder_keywords) {
            /* new()'s own keywords, as the Python path keeps its **kwargs */
            made = value = PyDict_New();
            if (made == NULL || PyDict_SetItem(made, keyword, nonce) < 0) {
                Py_XDECREF(made);
                Py_DECREF(made_object);
                return NULL;
            }
        }
        else if (PyTuple_CheckExact(value) && PyTuple_GET_SIZE(value) == 4
                 && PyTuple_GET_ITEM(value, 0) == placeholder_fresh) {
            made = value = fresh_object(PyTuple_GET_ITEM(value, 1), PyTuple_GET_ITEM(value, 2),
                                        PyTuple_GET_ITEM(value, 3), provider, key, nonce,
                                        keyword);
            if (made == NULL) {
                Py_DECREF(made_object);
                return NULL;
            }
        }
        int failed = PyObject_SetAttr(made_object, PyTuple_GET_ITEM(fields, i), value);
        Py_XDECREF(made);
        if (failed) {
            Py_DECREF(made_object);
            return NULL;
        }
    }
    return made_object;
}

static PyObject *
gcm_object(GcmNew *self, PyObject *provider, PyObject *key, PyObject *nonce)
{
    PyObject *result = NULL;
    PyTypeObject *cls = (PyTypeObject *)self->cls;
    PyObject *cipher = cls->tp_new(cls, empty_tuple, NULL);
    PyObject *one_shot = PyList_New(1);
    if (cipher != NULL && one_shot != NULL) {
        Py_INCREF(long_tag_size);
        PyList_SET_ITEM(one_shot, 0, long_tag_size);
        /* The layout _aes_gcm.FRESH_FIELDS declares, in its order: an object
           made here is laid out as GcmCipher.__init__ lays it out. */
        PyObject *values[GCM_FRESH_FIELDS] = {self->backing, provider, key, nonce, one_shot};
        Py_ssize_t i = 0;
        while (i < GCM_FRESH_FIELDS
               && PyObject_SetAttr(cipher, PyTuple_GET_ITEM(self->fields, i), values[i]) == 0) {
            i++;
        }
        if (i == GCM_FRESH_FIELDS) {
            result = cipher;
            cipher = NULL;
        }
    }
    Py_XDECREF(one_shot);
    Py_XDECREF(cipher);
    return result;
}

/* The object for new(key, mode[, nonce=nonce]) (nonce NULL: no keyword) when
   a shape serves it and its slot has a provider; NULL with no error when
   none does, NULL with an error on failure. */
static PyObject *
served_object(GcmNew *self, long mode, PyObject *key, PyObject *nonce, PyObject *keyword)
{
    Py_ssize_t nonce_size = nonce == NULL ? 0 : PyBytes_GET_SIZE(nonce);
    if (mode == self->mode) {
        if (nonce == NULL || !is_keyword(keyword, str_nonce) || nonce_size < self->nonce_min
            || nonce_size > self->nonce_max) {
            return NULL;
        }
        PyObject *provider = resolved_provider(self, self->slot);
        if (provider == NULL) {
            return NULL;
        }
        PyObject *cipher = gcm_object(self, provider, key, nonce);
        Py_DECREF(provider);
        return cipher;
    }
    Py_ssize_t count = self->n_shapes;
    for (Py_ssize_t i = 0; i < count; i++) {
        AeadShape *shape = &self->shapes[i];
        if (shape->mode != mode || shape->takes_nonce != (nonce != NULL)) {
            continue;
        }
        if (nonce != NULL && !is_keyword(keyword, shape->keyword)) {
            return NULL;  /* another keyword (IV=, say): the Python new judges it */
        }
        if (nonce != NULL && (nonce_size < shape->nonce_min || nonce_size > shape->nonce_max)) {
            return NULL;
        }
        PyObject *provider = resolved_provider(self, shape->slot);
        if (provider == NULL) {
            return NULL;
        }
        PyObject *values = PyTuple_GET_ITEM(shape->values, nonce_size - shape->nonce_min);
        PyObject *cipher = fresh_object(shape->cls, shape->fields, values, provider, key, nonce,
                                        keyword);
        Py_DECREF(provider);
        return cipher;
    }
    return NULL;
}

static PyObject *
GcmNew_vectorcall(GcmNew *self, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    Py_ssize_t n_keywords = kwnames == NULL ? 0 : PyTuple_GET_SIZE(kwnames);
    if (nargs == 2 && n_keywords <= 1 && PyBytes_CheckExact(args[0])
        && PyLong_CheckExact(args[1]) && is_key_size(self, PyBytes_GET_SIZE(args[0]))) {
        PyObject *nonce = NULL, *keyword = NULL;
        if (n_keywords == 1) {
            keyword = PyTuple_GET_ITEM(kwnames, 0);
            nonce = args[2];
        }
        int overflow;
        long mode = PyLong_AsLongAndOverflow(args[1], &overflow);
        if (overflow == 0
            && (nonce == NULL || PyBytes_CheckExact(nonce))) {
            PyObject *cipher = served_object(self, mode, args[0], nonce, keyword);
            if (cipher != NULL || PyErr_Occurred()) {
                return cipher;
            }
        }
    }
    return call_fallback(self->fallback, args, nargsf, kwnames);
}

/* Whether values (a tuple) suit fields: as long, every FRESH value well formed
   (nested: once, when allow_fresh), NONCE and KEYWORDS only with a nonce. */
static int
shape_values_ok(PyObject *fields, PyObject *values, int takes_nonce, int allow_fresh)
{
    Py_ssize_t count = PyTuple_GET_SIZE(fields);
    if (!PyTuple_CheckExact(values) || PyTuple_GET_SIZE(values) != count) {
        return 0;
    }
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *value = PyTuple_GET_ITEM(values, i);
        if (!PyUnicode_CheckExact(PyTuple_GET_ITEM(fields, i))) {
            return 0;
        }
        if (!takes_nonce && (value == placeholder_nonce || value == placeholder_keywords)) {
            return 0;
        }
        if (PyTuple_CheckExact(value) && PyTuple_GET_SIZE(value) == 4
            && PyTuple_GET_ITEM(value, 0) == placeholder_fresh) {
            PyObject *cls = PyTuple_GET_ITEM(value, 1), *names = PyTuple_GET_ITEM(value, 2);
            if (!allow_fresh || !PyType_Check(cls) || ((PyTypeObject *)cls)->tp_new == NULL
                || !PyTuple_CheckExact(names)
                || !shape_values_ok(names, PyTuple_GET_ITEM(value, 3), takes_nonce, 0)) {
                return 0;
            }
        }
    }
    return 1;
}

/* add_shape(mode, cls, fields, values, slot, nonce_min=-1, nonce_max=-1, keyword="nonce"):
   serve new(key, mode, <keyword>=nonce) too, with bytes key and nonce of those
   sizes (without them: new(key, mode), no keyword), while slot.provider is a
   provider: a cls whose attributes fields are set, in that order, to the
   values for the nonce's size (PROVIDER, KEY, NONCE, KEYWORDS and FRESH
   filled per call). Once per shape: a second call changes nothing. */
static PyObject *
GcmNew_add_shape(GcmNew *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"mode", "cls", "fields", "values", "slot", "nonce_min",
                             "nonce_max", "keyword", NULL};
    long mode;
    PyObject *cls, *fields, *values, *slot, *keyword = str_nonce;
    Py_ssize_t nonce_min = -1, nonce_max = -1;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "lO!O!O!O|nnU:add_shape", kwlist, &mode,
                                     &PyType_Type, &cls, &PyTuple_Type, &fields, &PyTuple_Type,
                                     &values, &slot, &nonce_min, &nonce_max, &keyword)) {
        return NULL;
    }
    int takes_nonce = nonce_min != -1 || nonce_max != -1;
    Py_ssize_t sizes = takes_nonce ? nonce_max - nonce_min + 1 : 1;
    int ok = mode != self->mode && ((PyTypeObject *)cls)->tp_new != NULL
             && (!takes_nonce || (nonce_min >= 0 && nonce_max >= nonce_min))
             && PyTuple_GET_SIZE(values) == sizes;
    for (Py_ssize_t i = 0; ok && i < sizes; i++) {
        ok = shape_values_ok(fields, PyTuple_GET_ITEM(values, i), takes_nonce, 1);
    }
    if (!ok) {
        PyErr_SetString(PyExc_ValueError,
                        "add_shape: another mode, 0 <= nonce_min <= nonce_max or neither, and "
                        "one tuple of values per nonce size, each as long as fields");
        return NULL;
    }
    for (Py_ssize_t i = 0; i < self->n_shapes; i++) {
        if (self->shapes[i].mode == mode && self->shapes[i].takes_nonce == takes_nonce) {
            Py_RETURN_NONE;
        }
    }
    if (self->n_shapes == GCM_MAX_SHAPES) {
        PyErr_SetString(PyExc_ValueError, "add_shape: no room for another shape");
        return NULL;
    }
    AeadShape *shape = &self->shapes[self->n_shapes];
    shape->mode = mode;
    shape->takes_nonce = takes_nonce;
    Py_INCREF(keyword);
    PyUnicode_InternInPlace(&keyword);
    shape->keyword = keyword;
    Py_INCREF(cls);
    shape->cls = cls;
    Py_INCREF(slot);
    shape->slot = slot;
    Py_INCREF(fields);
    shape->fields = fields;
    Py_INCREF(values);
    shape->values = values;
    shape->nonce_min = takes_nonce ? nonce_min : 0;
    shape->nonce_max = takes_nonce ? nonce_max : 0;
    self->n_shapes++;
    Py_RETURN_NONE;
}

static PyMethodDef GcmNew_methods[] = {
    {"add_shape", (PyCFunction)(void (*)(void))GcmNew_add_shape, METH_VARARGS | METH_KEYWORDS,
     "add_shape(mode, cls, fields, values, slot, nonce_min=-1, nonce_max=-1, keyword='nonce'): "
     "serve that mode too"},
    CALLABLE_REDUCE_METHOD,
    {NULL, NULL, 0, NULL},
};

static PyObject *
GcmNew_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    PyObject *cls, *fields, *backing, *slot, *unresolved, *fallback, *key_sizes;
    long mode;
    Py_ssize_t nonce_min, nonce_max;
    static char *kwlist[] = {"cls", "fields", "backing", "slot", "unresolved", "fallback",
                             "mode", "key_sizes", "nonce_min", "nonce_max", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O!O!OOOOlO!nn:GcmNew", kwlist, &PyType_Type,
                                     &cls, &PyTuple_Type, &fields, &backing, &slot, &unresolved,
                                     &fallback, &mode, &PyTuple_Type, &key_sizes, &nonce_min,
                                     &nonce_max)) {
        return NULL;
    }
    Py_ssize_t n_key_sizes = PyTuple_GET_SIZE(key_sizes);
    if (n_key_sizes < 1 || n_key_sizes > GCM_MAX_KEY_SIZES || nonce_min < 1
        || nonce_max < nonce_min) {
        PyErr_SetString(PyExc_ValueError,
                        "GcmNew: 1 to 4 key sizes, and 1 <= nonce_min <= nonce_max");
        return NULL;
    }
    Py_ssize_t sizes[GCM_MAX_KEY_SIZES];
    for (Py_ssize_t i = 0; i < n_key_sizes; i++) {
        sizes[i] = PyLong_AsSsize_t(PyTuple_GET_ITEM(key_sizes, i));
        if (sizes[i] == -1 && PyErr_Occurred()) {
            return NULL;
        }
    }
    if (!PyCallable_Check(fallback)) {
        PyErr_SetString(PyExc_TypeError, "GcmNew: fallback must be callable");
        return NULL;
    }
    if (((PyTypeObject *)cls)->tp_new == NULL) {
        PyErr_SetString(PyExc_TypeError, "GcmNew: cls cannot be instantiated");
        return NULL;
    }
    int fields_ok = PyTuple_GET_SIZE(fields) == GCM_FRESH_FIELDS;
    for (Py_ssize_t i = 0; fields_ok && i < GCM_FRESH_FIELDS; i++) {
        fields_ok = PyUnicode_CheckExact(PyTuple_GET_ITEM(fields, i));
    }
    if (!fields_ok) {
        PyErr_SetString(PyExc_TypeError, "GcmNew: fields must be a tuple of 5 names");
        return NULL;
    }
    GcmNew *self = (GcmNew *)type->tp_alloc(type, 0);
    if (self == NULL) {
        return NULL;
    }
    self->mode = mode;
    self->n_key_sizes = n_key_sizes;
    memcpy(self->key_sizes, sizes, sizeof(Py_ssize_t) * (size_t)n_key_sizes);
    self->nonce_min = nonce_min;
    self->nonce_max = nonce_max;
    Py_INCREF(fields);
    self->fields = fields;
    Py_INCREF(cls);
    self->cls = cls;
    Py_INCREF(backing);
    self->backing = backing;
    Py_INCREF(slot);
    self->slot = slot;
    Py_INCREF(unresolved);
    self->unresolved = unresolved;
    Py_INCREF(fallback);
    self->fallback = fallback;
    self->vectorcall = (vectorcallfunc)GcmNew_vectorcall;
    return (PyObject *)self;
}

static int
GcmNew_traverse(GcmNew *self, visitproc visit, void *arg)
{
    Py_VISIT(self->fallback);
    Py_VISIT(self->dict);
    Py_VISIT(self->cls);
    Py_VISIT(self->backing);
    Py_VISIT(self->slot);
    Py_VISIT(self->unresolved);
    Py_VISIT(self->fields);
    for (Py_ssize_t i = 0; i < self->n_shapes; i++) {
        Py_VISIT(self->shapes[i].cls);
        Py_VISIT(self->shapes[i].slot);
        Py_VISIT(self->shapes[i].fields);
        Py_VISIT(self->shapes[i].values);
    }
    return 0;
}

static int
GcmNew_clear(GcmNew *self)
{
    Py_CLEAR(self->fallback);
    Py_CLEAR(self->dict);
    Py_CLEAR(self->cls);
    Py_CLEAR(self->backing);
    Py_CLEAR(self->slot);
    Py_CLEAR(self->unresolved);
    Py_CLEAR(self->fields);
    Py_ssize_t count = self->n_shapes;
    self->n_shapes = 0;  /* no call reads an entry being cleared */
    for (Py_ssize_t i = 0; i < count; i++) {
        Py_CLEAR(self->shapes[i].cls);
        Py_CLEAR(self->shapes[i].slot);
        Py_CLEAR(self->shapes[i].fields);
        Py_CLEAR(self->shapes[i].values);
        Py_CLEAR(self->shapes[i].keyword);
    }
    return 0;
}

static void
GcmNew_dealloc(GcmNew *self)
{
    PyObject_GC_UnTrack(self);
    callable_clear_weakrefs((PyObject *)self, self->weakreflist);
    GcmNew_clear(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyMemberDef GcmNew_members[] = {
    {"fallback", T_OBJECT, offsetof(GcmNew, fallback), READONLY, "the general new()"},
    {NULL, 0, 0, 0, NULL},
};

static PyTypeObject GcmNew_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "accel_agent._speedups.GcmNew",
    .tp_basicsize = sizeof(GcmNew),
    .tp_dealloc = (destructor)GcmNew_dealloc,
    .tp_vectorcall_offset = offsetof(GcmNew, vectorcall),
    .tp_call = PyVectorcall_Call,
    .tp_getattro = PyObject_GenericGetAttr,
    .tp_setattro = PyObject_GenericSetAttr,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_doc = "GcmNew(cls, fields, backing, slot, unresolved, fallback): AES.new's GCM shape in C.",
    .tp_traverse = (traverseproc)GcmNew_traverse,
    .tp_clear = (inquiry)GcmNew_clear,
    .tp_members = GcmNew_members,
    .tp_methods = GcmNew_methods,
    .tp_getset = callable_getset,
    .tp_dictoffset = offsetof(GcmNew, dict),
    .tp_weaklistoffset = offsetof(GcmNew, weakreflist),
    .tp_new = GcmNew_new,
};

/* ------------------------------------------------------------------ EcbMethod */

/* An ECB object's encrypt or decrypt (targets/pycryptodome/_block_modes.py,
   EcbCipher), as a method of its class. The call of bytes without output=,
   whole blocks, shorter than the class's _native_from, on an object whose
   context (_encryptor or _decryptor) is open, is the context's update(), made
   here; every other call goes to the Python method it was given, which also
   opens the context. A RuntimeError from update() (another thread inside the
   shared context: pyo3's "Already borrowed") is left to the Python method
   too, which makes the call again and, if the context is still busy, serves
   it on a context of its own, as it serves every such call: a shared object
   never raises what native never raises. */
typedef struct {
    PyObject_HEAD
    CALLABLE_WITH_DICT_FIELDS;
    PyObject *context_name;  /* the object's attribute holding the context */
    /* Two lookups kept while the type they were made on is unchanged (its
       version tag, which CPython renews when a type or a base changes): the
       update method descriptor of the contexts' type, whose objects have no
       __dict__ (context.update is that descriptor), and the _native_from of
       the objects' class (calibration sets it on the class; objects have
       none of their own). */
    PyTypeObject *context_type;
    unsigned int context_tag;
    PyObject *update;
    PyTypeObject *owner_type;
    unsigned int owner_tag;
    Py_ssize_t native_from;
    Py_ssize_t block_size;
    Py_ssize_t calls;  /* calls served here (registry.Slot.counters adds them) */
} EcbMethod;

static PyObject *str_native_from;  /* "_native_from" */

/* Whether a lookup made on type when its version tag was tag still holds. */
static int
type_unchanged(PyTypeObject *type, unsigned int tag)
{
#ifdef Py_TPFLAGS_VALID_VERSION_TAG
    if (!PyType_HasFeature(type, Py_TPFLAGS_VALID_VERSION_TAG)) {
        return 0;
    }
#endif
    return tag != 0 && type->tp_version_tag == tag;
}

/* The update descriptor of the contexts' type (borrowed), or NULL, no error:
   then the caller looks update up on the context. */
static PyObject *
ecb_update_of(EcbMethod *self, PyTypeObject *type)
{
    if (type == self->context_type && type_unchanged(type, self->context_tag)) {
        return self->update;
    }
    if (type->tp_dictoffset != 0) {
        return NULL;
    }
    PyObject *update = PyObject_GetAttr((PyObject *)type, str_update);  /* tags the type */
    if (update == NULL || !PyObject_TypeCheck(update, &PyMethodDescr_Type)) {
        PyErr_Clear();
        Py_XDECREF(update);
        return NULL;
    }
    Py_INCREF(type);
    Py_XSETREF(self->context_type, type);
    self->context_tag = type->tp_version_tag;
    Py_XSETREF(self->update, update);
    return update;
}

/* The class's _native_from: 1 and *from set, 0 when it is not a size the
   fast path compares (the Python method then decides). */
static int
ecb_native_from(EcbMethod *self, PyTypeObject *type, Py_ssize_t *from)
{
    if (type == self->owner_type && type_unchanged(type, self->owner_tag)) {
        *from = self->native_from;
        return 1;
    }
    PyObject *limit = PyObject_GetAttr((PyObject *)type, str_native_from);  /* tags the type */
    Py_ssize_t value = -1;
    if (limit != NULL) {
        value = PyLong_CheckExact(limit) ? PyLong_AsSsize_t(limit) : -1;
        Py_DECREF(limit);
    }
    if (value < 0) {
        /* none, not a size, or past Py_ssize_t: the Python method reads and
           compares it (and raises its own error for an object without one) */
        PyErr_Clear();
        return 0;
    }
    Py_INCREF(type);
    Py_XSETREF(self->owner_type, type);
    self->owner_tag = type->tp_version_tag;
    self->native_from = value;
    *from = value;
    return 1;
}

static PyObject *
EcbMethod_vectorcall(EcbMethod *self, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    if (nargs == 2 && kwnames == NULL && PyBytes_CheckExact(args[1])
        && PyBytes_GET_SIZE(args[1]) % self->block_size == 0) {
        PyObject *obj = args[0], *data = args[1];
        Py_ssize_t from;
        if (ecb_native_from(self, Py_TYPE(obj), &from) && PyBytes_GET_SIZE(data) < from) {
            PyObject *context = PyObject_GetAttr(obj, self->context_name);
            if (context == NULL) {
                PyErr_Clear();  /* the Python method reads it again and raises its error */
            }
            else if (context != Py_None) {
                PyObject *call[2] = {context, data};
                /* held for the call: update() lets other threads run, one of
                   which may replace what this method keeps */
                PyObject *update = ecb_update_of(self, Py_TYPE(context));
                PyObject *result;
                if (update != NULL) {
                    Py_INCREF(update);
                    result = PyObject_Vectorcall(update, call, 2, NULL);
                    Py_DECREF(update);
                }
                else {
                    result = PyObject_VectorcallMethod(str_update, call, 2, NULL);
                }
                Py_DECREF(context);
                if (result != NULL) {
                    self->calls++;
                    return result;
                }
                if (!PyErr_ExceptionMatches(PyExc_RuntimeError)) {
                    return NULL;
                }
                PyErr_Clear();  /* busy: the Python method decides */
            }
            else {
                Py_DECREF(context);  /* not open yet: the Python method opens it */
            }
        }
    }
    return call_fallback(self->fallback, args, nargsf, kwnames);
}

/* Bound to an object, as a function is: obj.encrypt is a method. (Calls of
   obj.encrypt(...) skip this: Py_TPFLAGS_METHOD_DESCRIPTOR.) */
static PyObject *
EcbMethod_descr_get(PyObject *self, PyObject *obj, PyObject *type)
{
    if (obj == NULL || obj == Py_None) {
        Py_INCREF(self);
        return self;
    }
    return PyMethod_New(self, obj);
}

static PyObject *
EcbMethod_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    PyObject *fallback, *context_name;
    Py_ssize_t block_size;
    static char *kwlist[] = {"fallback", "context_name", "block_size", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OUn:EcbMethod", kwlist, &fallback,
                                     &context_name, &block_size)) {
        return NULL;
    }
    if (!PyCallable_Check(fallback) || block_size < 1) {
        PyErr_SetString(PyExc_TypeError, "EcbMethod: a callable fallback and a block size");
        return NULL;
    }
    EcbMethod *self = (EcbMethod *)type->tp_alloc(type, 0);
    if (self == NULL) {
        return NULL;
    }
    Py_INCREF(fallback);
    self->fallback = fallback;
    Py_INCREF(context_name);
    PyUnicode_InternInPlace(&context_name);
    self->context_name = context_name;
    self->block_size = block_size;
    self->vectorcall = (vectorcallfunc)EcbMethod_vectorcall;
    return (PyObject *)self;
}

static int
EcbMethod_traverse(EcbMethod *self, visitproc visit, void *arg)
{
    Py_VISIT(self->fallback);
    Py_VISIT(self->dict);
    Py_VISIT(self->context_type);
    Py_VISIT(self->update);
    Py_VISIT(self->owner_type);
    return 0;
}

static int
EcbMethod_clear(EcbMethod *self)
{
    Py_CLEAR(self->fallback);
    Py_CLEAR(self->dict);
    Py_CLEAR(self->context_type);
    Py_CLEAR(self->update);
    Py_CLEAR(self->owner_type);
    return 0;
}

static void
EcbMethod_dealloc(EcbMethod *self)
{
    PyObject_GC_UnTrack(self);
    callable_clear_weakrefs((PyObject *)self, self->weakreflist);
    EcbMethod_clear(self);
    Py_CLEAR(self->context_name);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyMemberDef EcbMethod_members[] = {
    {"fallback", T_OBJECT, offsetof(EcbMethod, fallback), READONLY, "the Python method"},
    {"calls", T_PYSSIZET, offsetof(EcbMethod, calls), 0, "calls served here"},
    {NULL, 0, 0, 0, NULL},
};

static PyTypeObject EcbMethod_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "accel_agent._speedups.EcbMethod",
    .tp_basicsize = sizeof(EcbMethod),
    .tp_dealloc = (destructor)EcbMethod_dealloc,
    .tp_vectorcall_offset = offsetof(EcbMethod, vectorcall),
    .tp_call = PyVectorcall_Call,
    .tp_getattro = PyObject_GenericGetAttr,
    .tp_setattro = PyObject_GenericSetAttr,
    .tp_descr_get = EcbMethod_descr_get,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL
                | Py_TPFLAGS_METHOD_DESCRIPTOR,
    .tp_doc = "EcbMethod(fallback, context_name, block_size): an ECB object's encrypt or "
              "decrypt of bytes in C.",
    .tp_traverse = (traverseproc)EcbMethod_traverse,
    .tp_clear = (inquiry)EcbMethod_clear,
    .tp_members = EcbMethod_members,
    .tp_getset = callable_getset,
    .tp_dictoffset = offsetof(EcbMethod, dict),
    .tp_weaklistoffset = offsetof(EcbMethod, weakreflist),
    .tp_new = EcbMethod_new,
};

/* ------------------------------------------------------------------ AEAD helpers */

/* seal_split(encrypt, nonce, data, aad, mac_len) -> (ct, tag)

   encrypt(nonce, data, aad) returns ct || tag (a 16-byte tag). The tag (its
   first mac_len bytes) is copied out; the ciphertext is the same bytes
   object cut short in place, which only its sole owner may do: this
   function, holding the only reference to what encrypt just returned.
   Otherwise the ciphertext is copied, as a slice would. */
static PyObject *
seal_split(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 5) {
        PyErr_SetString(PyExc_TypeError, "seal_split() takes 5 arguments");
        return NULL;
    }
    Py_ssize_t mac_len = PyLong_AsSsize_t(args[4]);
    if (mac_len == -1 && PyErr_Occurred()) {
        return NULL;
    }
    if (mac_len < 1 || mac_len > AEAD_TAG_SIZE) {
        PyErr_SetString(PyExc_ValueError, "seal_split(): mac_len must be 1..16");
        return NULL;
    }
    PyObject *sealed = PyObject_Vectorcall(args[0], args + 1, 3, NULL);
    if (sealed == NULL) {
        return NULL;
    }
    if (!PyBytes_CheckExact(sealed) || PyBytes_GET_SIZE(sealed) < AEAD_TAG_SIZE) {
        Py_DECREF(sealed);
        PyErr_SetString(PyExc_TypeError, "seal_split(): encrypt() returned no ct || tag");
        return NULL;
    }
    Py_ssize_t ct_size = PyBytes_GET_SIZE(sealed) - AEAD_TAG_SIZE;
    PyObject *tag = PyBytes_FromStringAndSize(PyBytes_AS_STRING(sealed) + ct_size, mac_len);
    if (tag == NULL) {
        Py_DECREF(sealed);
        return NULL;
    }
    PyObject *ct;
#ifndef Py_GIL_DISABLED
    if (Py_REFCNT(sealed) == 1) {
        /* Ours alone: shrink it (no copy; the allocator keeps the block). */
        ct = sealed;
        if (_PyBytes_Resize(&ct, ct_size) < 0) {
            Py_DECREF(tag);
            return NULL;
        }
    }
    else
#endif
    {
        ct = PyBytes_FromStringAndSize(PyBytes_AS_STRING(sealed), ct_size);
        Py_DECREF(sealed);
        if (ct == NULL) {
            Py_DECREF(tag);
            return NULL;
        }
    }
    PyObject *pair = PyTuple_New(2);
    if (pair == NULL) {
        Py_DECREF(ct);
        Py_DECREF(tag);
        return NULL;
    }
    PyTuple_SET_ITEM(pair, 0, ct);
    PyTuple_SET_ITEM(pair, 1, tag);
    return pair;
}

/* open_joined(decrypt, nonce, ct, tag, aad) -> decrypt(nonce, ct || tag, aad)

   ct and tag must be bytes; they are joined in one allocation, freed before
   returning. */
static PyObject *
open_joined(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 5) {
        PyErr_SetString(PyExc_TypeError, "open_joined() takes 5 arguments");
        return NULL;
    }
    PyObject *ct = args[2], *tag = args[3];
    if (!PyBytes_CheckExact(ct) || !PyBytes_CheckExact(tag)) {
        PyErr_SetString(PyExc_TypeError, "open_joined(): ct and tag must be bytes");
        return NULL;
    }
    Py_ssize_t ct_size = PyBytes_GET_SIZE(ct), tag_size = PyBytes_GET_SIZE(tag);
    PyObject *joined = PyBytes_FromStringAndSize(NULL, ct_size + tag_size);
    if (joined == NULL) {
        return NULL;
    }
    memcpy(PyBytes_AS_STRING(joined), PyBytes_AS_STRING(ct), ct_size);
    memcpy(PyBytes_AS_STRING(joined) + ct_size, PyBytes_AS_STRING(tag), tag_size);
    PyObject *call_args[3] = {args[1], joined, args[4]};
    PyObject *result = PyObject_Vectorcall(args[0], call_args, 3, NULL);
    Py_DECREF(joined);
    return result;
}

/* stream_update(context, data) -> context.update(data)

   pyca/cryptography's streaming update() builds its result in a buffer of
   its own and copies it into a new bytes object: at 1 MiB the copy is ~10%
   of the decryption. Here update_into() writes into a bytes object made for
   it, through a Window on its storage, before the object is published:
   this function holds its only reference, the window is closed before it
   returns (and must have no buffer outstanding), and the object is then
   cut to the length written. Data other
   than bytes, or shorter than STREAM_COPY_SAVED_FROM, goes to update(). */
/* A writable window on memory this module owns, for one call: it counts the
   buffers it exports, and once closed exports none. A memoryview of raw
   memory could not tell whether a view derived from it (memoryview(view))
   outlived the call; this can. */
typedef struct {
    PyObject_HEAD
    char *memory;        /* NULL once closed */
    Py_ssize_t size;
    Py_ssize_t exports;  /* buffers handed out and not yet released */
} Window;

static int
Window_getbuffer(Window *self, Py_buffer *view, int flags)
{
    if (self->memory == NULL) {
        PyErr_SetString(PyExc_BufferError, "this window was closed");
        view->obj = NULL;
        return -1;
    }
    if (PyBuffer_FillInfo(view, (PyObject *)self, self->memory, self->size, 0, flags) < 0) {
        return -1;
    }
    self->exports++;
    return 0;
}

static void
Window_releasebuffer(Window *self, Py_buffer *view)
{
    self->exports--;
}

static PyBufferProcs Window_as_buffer = {
    (getbufferproc)Window_getbuffer,
    (releasebufferproc)Window_releasebuffer,
};

static PyTypeObject Window_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "accel_agent._speedups.Window",
    .tp_basicsize = sizeof(Window),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A writable window on a bytes object being built (stream_update).",
    .tp_as_buffer = &Window_as_buffer,
};

#define STREAM_SLACK 15  /* update_into() wants len(data) + block_size - 1 bytes */
/* Below this, the memoryview and the second call cost more than the copy
   saved (measured: 64 B +270 ns, 16 KiB +140 ns, 64 KiB -300 ns, 1 MiB -18 us). */
#define STREAM_COPY_SAVED_FROM (64 * 1024)

static PyObject *
stream_update(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "stream_update() takes 2 arguments");
        return NULL;
    }
    PyObject *context = args[0], *data = args[1];
    if (!PyBytes_CheckExact(data) || PyBytes_GET_SIZE(data) < STREAM_COPY_SAVED_FROM) {
        return PyObject_CallMethodOneArg(context, str_update, data);
    }
    Py_ssize_t capacity = PyBytes_GET_SIZE(data) + STREAM_SLACK;
    PyObject *out = PyBytes_FromStringAndSize(NULL, capacity);
    if (out == NULL) {
        return NULL;
    }
    Window *window = PyObject_New(Window, &Window_Type);
    if (window == NULL) {
        Py_DECREF(out);
        return NULL;
    }
    window->memory = PyBytes_AS_STRING(out);
    window->size = capacity;
    window->exports = 0;
    PyObject *written =
        PyObject_CallMethodObjArgs(context, str_update_into, data, (PyObject *)window, NULL);
    Py_ssize_t outstanding = window->exports;
    window->memory = NULL;  /* closed: whoever kept the window gets no buffer from it */
    window->size = 0;
    Py_DECREF(window);
    if (outstanding != 0) {
        /* A buffer on out's storage outlived the call: out must outlive it, so
           it is deliberately never freed, and not returned either.
           pyca/cryptography releases its buffers before update_into()
           returns; this does not happen with it. */
        Py_XDECREF(written);
        if (!PyErr_Occurred()) {
            PyErr_SetString(PyExc_BufferError,
                            "stream_update(): a buffer of the output outlived update_into()");
        }
        return NULL;
    }
    if (written == NULL) {
        Py_DECREF(out);
        return NULL;
    }
    Py_ssize_t length = PyLong_AsSsize_t(written);
    Py_DECREF(written);
    if (length < 0 || length > capacity) {
        Py_DECREF(out);
        if (!PyErr_Occurred()) {
            PyErr_SetString(PyExc_ValueError, "stream_update(): update_into() wrote past its buffer");
        }
        return NULL;
    }
    if (_PyBytes_Resize(&out, length) < 0) {
        return NULL;
    }
    return out;
}

/* ------------------------------------------------------------------ ChaCha */

/* KeywordNew(flat, general, key_size): a ChaCha module's new(key=..., nonce=...).

   The common call, exactly the keywords key and nonce (either order), both
   bytes and the key key_size long, goes to flat(key, nonce), the Python
   function that builds the object without an __init__ frame; any other
   call, or one flat answers None for, goes to general(*args, **kwargs) as
   made. No Python frame of new()'s own, nor its **kwargs dictionary
   (targets/pycryptodome/chacha.py's _keyword_new is the Python twin). */
typedef struct {
    PyObject_HEAD
    CALLABLE_WITH_DICT_FIELDS;  /* fallback: general */
    PyObject *flat;
    Py_ssize_t key_size;
} KeywordNew;

static PyObject *str_key;  /* "key" */

static int
is_name(PyObject *name, PyObject *interned)
{
    return name == interned
           || (PyUnicode_CheckExact(name) && PyUnicode_Compare(name, interned) == 0);
}

static PyObject *
KeywordNew_vectorcall(KeywordNew *self, PyObject *const *args, size_t nargsf,
                      PyObject *kwnames)
{
    if (PyVectorcall_NARGS(nargsf) == 0 && kwnames != NULL && PyTuple_GET_SIZE(kwnames) == 2
        && self->flat != NULL) {
        PyObject *first = PyTuple_GET_ITEM(kwnames, 0), *second = PyTuple_GET_ITEM(kwnames, 1);
        PyObject *pair[2] = {NULL, NULL};  /* key, nonce */
        if (is_name(first, str_key) && is_name(second, str_nonce)) {
            pair[0] = args[0];
            pair[1] = args[1];
        }
        else if (is_name(first, str_nonce) && is_name(second, str_key)) {
            pair[0] = args[1];
            pair[1] = args[0];
        }
        if (pair[0] != NULL && PyBytes_CheckExact(pair[0]) && PyBytes_CheckExact(pair[1])
            && PyBytes_GET_SIZE(pair[0]) == self->key_size) {
            PyObject *flat = self->flat;
            Py_INCREF(flat);
            PyObject *made = PyObject_Vectorcall(flat, pair, 2, NULL);
            Py_DECREF(flat);
            if (made != Py_None) {
                return made;  /* the object, or NULL with flat's error */
            }
            Py_DECREF(made);
        }
    }
    return call_fallback(self->fallback, args, nargsf, kwnames);
}

static PyObject *
KeywordNew_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    PyObject *flat, *general;
    Py_ssize_t key_size;
    static char *kwlist[] = {"flat", "general", "key_size", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OOn:KeywordNew", kwlist,
                                     &flat, &general, &key_size)) {
        return NULL;
    }
    if (!PyCallable_Check(flat) || !PyCallable_Check(general)) {
        PyErr_SetString(PyExc_TypeError, "KeywordNew: flat and general must be callable");
        return NULL;
    }
    KeywordNew *self = (KeywordNew *)type->tp_alloc(type, 0);
    if (self == NULL) {
        return NULL;
    }
    Py_INCREF(flat);
    self->flat = flat;
    Py_INCREF(general);
    self->fallback = general;
    self->key_size = key_size;
    self->vectorcall = (vectorcallfunc)KeywordNew_vectorcall;
    return (PyObject *)self;
}

static int
KeywordNew_traverse(KeywordNew *self, visitproc visit, void *arg)
{
    Py_VISIT(self->fallback);
    Py_VISIT(self->dict);
    Py_VISIT(self->flat);
    return 0;
}

static int
KeywordNew_clear(KeywordNew *self)
{
    Py_CLEAR(self->fallback);
    Py_CLEAR(self->dict);
    Py_CLEAR(self->flat);
    return 0;
}

static void
KeywordNew_dealloc(KeywordNew *self)
{
    PyObject_GC_UnTrack(self);
    callable_clear_weakrefs((PyObject *)self, self->weakreflist);
    KeywordNew_clear(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyMethodDef KeywordNew_methods[] = {
    CALLABLE_REDUCE_METHOD,
    {NULL, NULL, 0, NULL},
};

static PyMemberDef KeywordNew_members[] = {
    {"flat", T_OBJECT, offsetof(KeywordNew, flat), READONLY, "flat(key, nonce): object or None"},
    {"fallback", T_OBJECT, offsetof(KeywordNew, fallback), READONLY, "general(*args, **kwargs)"},
    {NULL, 0, 0, 0, NULL},
};

static PyTypeObject KeywordNew_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "accel_agent._speedups.KeywordNew",
    .tp_basicsize = sizeof(KeywordNew),
    .tp_dealloc = (destructor)KeywordNew_dealloc,
    .tp_vectorcall_offset = offsetof(KeywordNew, vectorcall),
    .tp_call = PyVectorcall_Call,
    .tp_getattro = PyObject_GenericGetAttr,
    .tp_setattro = PyObject_GenericSetAttr,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_doc = "KeywordNew(flat, general, key_size): a ChaCha module's new(key=, nonce=) in C.",
    .tp_traverse = (traverseproc)KeywordNew_traverse,
    .tp_clear = (inquiry)KeywordNew_clear,
    .tp_members = KeywordNew_members,
    .tp_methods = KeywordNew_methods,
    .tp_getset = callable_getset,
    .tp_dictoffset = offsetof(KeywordNew, dict),
    .tp_weaklistoffset = offsetof(KeywordNew, weakreflist),
    .tp_new = KeywordNew_new,
};

/* The ChaCha section's type and name, added to the module. */
static int
add_chacha_types(PyObject *module)
{
    str_key = PyUnicode_InternFromString("key");
    if (str_key == NULL || PyType_Ready(&KeywordNew_Type) < 0) {
        return -1;
    }
    Py_INCREF(&KeywordNew_Type);
    if (PyModule_AddObject(module, "KeywordNew", (PyObject *)&KeywordNew_Type) < 0) {
        Py_DECREF(&KeywordNew_Type);
        return -1;
    }
    return 0;
}

/* ------------------------------------------------------------------ CounterStream */

/* CounterStream(context, block, counter_offset, counter_len, little_endian,
                 fresh=None, fresh_arg=None)

   The key stream of pycryptodome's CTR for a counter OpenSSL's CTR cannot
   follow: the counter block is prefix || counter field || suffix, and only
   the field counts (little- or big-endian, modulo 2**(8*counter_len)), as
   in pycryptodome's raw_ctr.c. context is an ECB encryption context: the
   counter blocks of a chunk of data are made here, encrypted by one call of
   its update_into() (update() for a last, shorter chunk), and XORed into
   the data. Where the stream ends (how long a counter
   may run) is the caller's business. update() and update_into() take and
   give what a pyca/cryptography context's do, so that the callers of a
   context (stream_update) serve this too. State is committed chunk by
   chunk, after the encryption of the chunk returned; a second thread
   calling in meanwhile is refused with "Already borrowed", as a busy
   pyca/cryptography context refuses (providers/contexts.py waits).

   The ECB context may be shared with other streams of the same key (it
   holds nothing between calls of whole blocks): when pyca/cryptography
   refuses it because another thread is inside, before anything is read,
   the stream takes a context of its own, fresh(fresh_arg), and makes the
   call again (own_context). */
#define COUNTER_MAX_BLOCK 32
/* Blocks per call of the ECB context: 64 KiB of AES. Counter blocks, key
   stream and data stay in the cache (1 MiB at once measured 2x slower),
   and each call through pyca/cryptography costs a fixed amount (it releases
   the GIL). Measured, agent against native at 1 MiB (little-endian /
   suffixed counter): 8 KiB chunks 0.97x / 0.89x, 16 KiB 1.04x / 0.96x,
   32 KiB 1.08x / 1.00x, 64 KiB 1.09x / 1.03x. */
#define COUNTER_CHUNK_BLOCKS 4096

typedef struct {
    PyObject_HEAD
    PyObject *context;   /* the ECB encryption context (maybe shared: see own_context) */
    PyObject *fresh;     /* fresh(fresh_arg) -> an ECB context of this stream's own, or NULL */
    PyObject *fresh_arg;
    PyObject *counters;  /* bytearray: a full chunk's counter blocks (made on first need) */
    PyObject *scratch;   /* bytearray: their key stream */
    Py_ssize_t block_size, counter_offset, counter_len;
    int little_endian;
    int busy;
    Py_ssize_t used;  /* bytes of keystream[] used; block_size: none left */
    unsigned char counter[COUNTER_MAX_BLOCK];    /* the next counter block */
    unsigned char keystream[COUNTER_MAX_BLOCK];  /* the last block's key stream */
    /* The block whose bytes outside the low word every block of counters[]
       holds (valid when filled is set): a chunk that shares them rewrites
       only the low words. */
    unsigned char template[COUNTER_MAX_BLOCK];
    int filled;
} CounterStream;

static inline void
counter_next(const CounterStream *self, unsigned char *block)
{
    unsigned char *field = block + self->counter_offset;
    Py_ssize_t n = self->counter_len;
    if (self->little_endian) {
        for (Py_ssize_t i = 0; i < n; i++) {
            if (++field[i] != 0) {
                break;
            }
        }
    }
    else {
        for (Py_ssize_t i = n - 1; i >= 0; i--) {
            if (++field[i] != 0) {
                break;
            }
        }
    }
}

static inline void
xor_into(unsigned char *out, const unsigned char *in, const unsigned char *stream, Py_ssize_t n)
{
    Py_ssize_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t a, b;
        memcpy(&a, in + i, 8);
        memcpy(&b, stream + i, 8);
        a ^= b;
        memcpy(out + i, &a, 8);
    }
    for (; i < n; i++) {
        out[i] = in[i] ^ stream[i];
    }
}

static inline uint64_t
swap64(uint64_t w)
{
    w = ((w & 0x00FF00FF00FF00FFULL) << 8) | ((w >> 8) & 0x00FF00FF00FF00FFULL);
    w = ((w & 0x0000FFFF0000FFFFULL) << 16) | ((w >> 16) & 0x0000FFFF0000FFFFULL);
    return (w << 32) | (w >> 32);
}

/* The low word of the counter field (its last 8 bytes, or all if shorter):
   where it is in a block, and its value in or out. */
static inline Py_ssize_t
low_word_size(const CounterStream *self)
{
    return self->counter_len < 8 ? self->counter_len : 8;
}

static inline unsigned char *
low_word_at(const CounterStream *self, unsigned char *block)
{
    unsigned char *field = block + self->counter_offset;
    return self->little_endian ? field : field + self->counter_len - low_word_size(self);
}

static inline uint64_t
low_word_read(const CounterStream *self, const unsigned char *p, Py_ssize_t size)
{
    uint64_t v = 0;
    for (Py_ssize_t i = 0; i < size; i++) {
        v |= (uint64_t)p[self->little_endian ? i : size - 1 - i] << (8 * i);
    }
    return v;
}

static inline void
low_word_write(const CounterStream *self, unsigned char *p, Py_ssize_t size, uint64_t v)
{
    int host_order = self->little_endian ? PY_LITTLE_ENDIAN : !PY_LITTLE_ENDIAN;
    if (size == 8) {
        uint64_t w = host_order ? v : swap64(v);
        memcpy(p, &w, 8);
        return;
    }
    if (size == 4) {  /* a 32-bit field (RFC 3686's layout, say) */
        uint32_t w = (uint32_t)v;
        if (!host_order) {
            w = (uint32_t)(swap64((uint64_t)w) >> 32);
        }
        memcpy(p, &w, 4);
        return;
    }
    for (Py_ssize_t i = 0; i < size; i++) {
        p[self->little_endian ? i : size - 1 - i] = (unsigned char)(v >> (8 * i));
    }
}

/* Whether block a and block b differ only in the low word at [at, at + size). */
static inline int
same_outside(const unsigned char *a, const unsigned char *b, Py_ssize_t bs, Py_ssize_t at,
             Py_ssize_t size)
{
    return memcmp(a, b, at) == 0 && memcmp(a + at + size, b + at + size, bs - at - size) == 0;
}

/* Blocks counter blocks from next into c; next moves on by as many. Each
   run of blocks up to a carry out of the low word is the template block
   with the low word written; at a carry, the field's higher bytes move on
   (counter_next). c is this object's own counters[] when own is set: then a
   chunk with no carry whose blocks share the last such chunk's bytes
   outside the low word writes only the low words (the common case of a
   long message). */
static void
counter_fill(CounterStream *self, unsigned char *c, Py_ssize_t blocks, unsigned char *next,
             int own)
{
    Py_ssize_t bs = self->block_size, size = low_word_size(self);
    unsigned char *word = low_word_at(self, next);
    Py_ssize_t at = word - next;
    uint64_t top = size == 8 ? UINT64_MAX : ((uint64_t)1 << (8 * size)) - 1;
    int reuse = own && self->filled && same_outside(self->template, next, bs, at, size);
    int carried = 0;
    if (own) {
        memcpy(self->template, next, bs);
    }
    while (blocks > 0) {
        uint64_t v = low_word_read(self, word, size);
        Py_ssize_t run = top - v >= (uint64_t)blocks ? blocks : (Py_ssize_t)(top - v) + 1;
        if (reuse && !carried && run == blocks) {
            for (Py_ssize_t b = 0; b < run; b++, c += bs) {
                low_word_write(self, c + at, size, v + (uint64_t)b);
            }
        }
        else if (bs == 16) {  /* AES: a copy of constant size, inlined */
            for (Py_ssize_t b = 0; b < run; b++, c += 16) {
                memcpy(c, next, 16);
                low_word_write(self, c + at, size, v + (uint64_t)b);
            }
        }
        else {
            for (Py_ssize_t b = 0; b < run; b++, c += bs) {
                memcpy(c, next, bs);
                low_word_write(self, c + at, size, v + (uint64_t)b);
            }
        }
        blocks -= run;
        if ((uint64_t)(run - 1) == top - v) {
            /* The low word wrapped: carry into the field's higher bytes
               (or wrap the field, as pycryptodome's counter does). */
            low_word_write(self, word, size, top);
            counter_next(self, next);
            carried = 1;
        }
        else {
            low_word_write(self, word, size, v + (uint64_t)run);
        }
    }
    if (own) {
        self->filled = !carried;  /* a carry leaves blocks of two templates */
    }
}

/* Whether the exception set is pyo3's "Already borrowed" (contexts.is_busy). */
static int
error_is_busy(void)
{
    if (!PyErr_ExceptionMatches(PyExc_RuntimeError)) {
        return 0;
    }
    PyObject *type, *value, *traceback;
    PyErr_Fetch(&type, &value, &traceback);
    PyErr_NormalizeException(&type, &value, &traceback);
    int busy = 0;
    if (type == PyExc_RuntimeError && value != NULL) {
        PyObject *text = PyObject_Str(value);
        if (text != NULL) {
            PyObject *word = PyUnicode_FromString("borrowed");
            if (word != NULL) {
                busy = PyUnicode_Contains(text, word) == 1;
                Py_DECREF(word);
            }
            Py_DECREF(text);
        }
        PyErr_Clear();  /* a failure of str() itself: the original error stands */
    }
    PyErr_Restore(type, value, traceback);
    return busy;
}

/* The ECB context's update(a) (b NULL) or update_into(a, b). A shared
   context busy in another thread is replaced by one of this stream's own
   (fresh), and the call made again: the refusal consumed nothing. */
static PyObject *
counter_context_call(CounterStream *self, PyObject *a, PyObject *b)
{
    PyObject *result = b == NULL ? PyObject_CallMethodOneArg(self->context, str_update, a)
                                 : PyObject_CallMethodObjArgs(self->context, str_update_into, a,
                                                              b, NULL);
    if (result != NULL || self->fresh == NULL || !error_is_busy()) {
        return result;
    }
    PyErr_Clear();
    PyObject *own = PyObject_CallOneArg(self->fresh, self->fresh_arg);
    if (own == NULL) {
        return NULL;
    }
    Py_SETREF(self->context, own);
    Py_CLEAR(self->fresh);  /* its own now: never refused for another stream again */
    Py_CLEAR(self->fresh_arg);
    return b == NULL ? PyObject_CallMethodOneArg(self->context, str_update, a)
                     : PyObject_CallMethodObjArgs(self->context, str_update_into, a, b, NULL);
}

/* out[0:length] = in[0:length] XOR the next length bytes of key stream. */
static int
counter_crypt(CounterStream *self, const unsigned char *in, unsigned char *out, Py_ssize_t length)
{
    Py_ssize_t bs = self->block_size;
    Py_ssize_t take = bs - self->used;
    if (take > length) {
        take = length;
    }
    xor_into(out, in, self->keystream + self->used, take);
    self->used += take;
    in += take;
    out += take;
    length -= take;
    while (length > 0) {
        Py_ssize_t blocks = (length + bs - 1) / bs;
        unsigned char next[COUNTER_MAX_BLOCK];
        memcpy(next, self->counter, bs);
        PyObject *stream;  /* bytes, or the scratch bytearray */
        const unsigned char *ks;
        if (blocks >= COUNTER_CHUNK_BLOCKS) {
            /* A full chunk: through buffers of this object's own, update_into() */
            blocks = COUNTER_CHUNK_BLOCKS;
            if (self->counters == NULL) {
                self->counters = PyByteArray_FromStringAndSize(NULL, blocks * bs);
                self->scratch = PyByteArray_FromStringAndSize(NULL, blocks * bs + bs);
                if (self->counters == NULL || self->scratch == NULL) {
                    Py_CLEAR(self->counters);
                    Py_CLEAR(self->scratch);
                    return -1;
                }
            }
            counter_fill(self, (unsigned char *)PyByteArray_AS_STRING(self->counters), blocks, next,
                         1);
            PyObject *written = counter_context_call(self, self->counters, self->scratch);
            if (written == NULL) {
                return -1;
            }
            Py_ssize_t count = PyLong_AsSsize_t(written);
            Py_DECREF(written);
            if (count != blocks * bs) {
                if (!PyErr_Occurred()) {
                    PyErr_SetString(PyExc_ValueError,
                                    "CounterStream: update_into() wrote another length");
                }
                return -1;
            }
            stream = self->scratch;
            Py_INCREF(stream);
            ks = (const unsigned char *)PyByteArray_AS_STRING(stream);
        }
        else {
            PyObject *counters = PyBytes_FromStringAndSize(NULL, blocks * bs);
            if (counters == NULL) {
                return -1;
            }
            counter_fill(self, (unsigned char *)PyBytes_AS_STRING(counters), blocks, next, 0);
            stream = counter_context_call(self, counters, NULL);
            Py_DECREF(counters);
            if (stream == NULL) {
                return -1;
            }
            if (!PyBytes_Check(stream) || PyBytes_GET_SIZE(stream) != blocks * bs) {
                Py_DECREF(stream);
                PyErr_SetString(PyExc_ValueError, "CounterStream: update() returned another length");
                return -1;
            }
            ks = (const unsigned char *)PyBytes_AS_STRING(stream);
        }
        Py_ssize_t covered = length < blocks * bs ? length : blocks * bs;
        xor_into(out, in, ks, covered);
        memcpy(self->counter, next, bs);
        memcpy(self->keystream, ks + (blocks - 1) * bs, bs);
        self->used = covered - (blocks - 1) * bs;
        Py_DECREF(stream);
        in += covered;
        out += covered;
        length -= covered;
    }
    return 0;
}

static int
counter_enter(CounterStream *self)
{
    if (self->busy) {
        PyErr_SetString(PyExc_RuntimeError, "Already borrowed");
        return -1;
    }
    self->busy = 1;
    return 0;
}

static PyObject *
CounterStream_update(CounterStream *self, PyObject *data)
{
    Py_buffer in;
    if (PyObject_GetBuffer(data, &in, PyBUF_SIMPLE) < 0) {
        return NULL;
    }
    PyObject *out = PyBytes_FromStringAndSize(NULL, in.len);
    if (out == NULL || counter_enter(self) < 0) {
        Py_XDECREF(out);
        PyBuffer_Release(&in);
        return NULL;
    }
    int failed = counter_crypt(self, in.buf, (unsigned char *)PyBytes_AS_STRING(out), in.len);
    self->busy = 0;
    PyBuffer_Release(&in);
    if (failed) {
        Py_DECREF(out);
        return NULL;
    }
    return out;
}

static PyObject *
CounterStream_update_into(CounterStream *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "update_into() takes 2 arguments");
        return NULL;
    }
    Py_buffer in, out;
    if (PyObject_GetBuffer(args[0], &in, PyBUF_SIMPLE) < 0) {
        return NULL;
    }
    if (PyObject_GetBuffer(args[1], &out, PyBUF_WRITABLE) < 0) {
        PyBuffer_Release(&in);
        return NULL;
    }
    Py_ssize_t length = in.len;
    int failed = -1;
    if (out.len < length) {
        PyErr_SetString(PyExc_ValueError, "update_into(): the buffer is too small");
    }
    else if (counter_enter(self) == 0) {
        failed = counter_crypt(self, in.buf, out.buf, length);
        self->busy = 0;
    }
    PyBuffer_Release(&out);
    PyBuffer_Release(&in);
    return failed ? NULL : PyLong_FromSsize_t(length);
}

static PyObject *
CounterStream_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = {"context", "block", "counter_offset", "counter_len",
                             "little_endian", "fresh", "fresh_arg", NULL};
    PyObject *encrypt, *fresh = Py_None, *fresh_arg = Py_None;
    Py_buffer block;
    Py_ssize_t offset, counter_len;
    int little_endian;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "Oy*nnp|OO:CounterStream", kwlist, &encrypt,
                                     &block, &offset, &counter_len, &little_endian, &fresh,
                                     &fresh_arg)) {
        return NULL;
    }
    if (fresh != Py_None && !PyCallable_Check(fresh)) {
        PyBuffer_Release(&block);
        PyErr_SetString(PyExc_TypeError, "CounterStream: fresh must be callable or None");
        return NULL;
    }
    if (block.len < 1 || block.len > COUNTER_MAX_BLOCK || offset < 0 || counter_len < 1 ||
        offset + counter_len > block.len) {
        PyBuffer_Release(&block);
        PyErr_SetString(PyExc_ValueError, "CounterStream: no counter field of that shape");
        return NULL;
    }
    CounterStream *self = (CounterStream *)type->tp_alloc(type, 0);
    if (self == NULL) {
        PyBuffer_Release(&block);
        return NULL;
    }
    Py_INCREF(encrypt);
    self->context = encrypt;
    self->fresh = self->fresh_arg = NULL;
    if (fresh != Py_None) {
        Py_INCREF(fresh);
        Py_INCREF(fresh_arg);
        self->fresh = fresh;
        self->fresh_arg = fresh_arg;
    }
    self->counters = self->scratch = NULL;
    self->block_size = block.len;
    self->counter_offset = offset;
    self->counter_len = counter_len;
    self->little_endian = little_endian;
    self->busy = 0;
    self->filled = 0;
    self->used = block.len;
    memcpy(self->counter, block.buf, block.len);
    PyBuffer_Release(&block);
    return (PyObject *)self;
}

static int
CounterStream_traverse(CounterStream *self, visitproc visit, void *arg)
{
    Py_VISIT(self->context);
    Py_VISIT(self->fresh);
    Py_VISIT(self->fresh_arg);
    Py_VISIT(self->counters);
    Py_VISIT(self->scratch);
    return 0;
}

static int
CounterStream_clear(CounterStream *self)
{
    Py_CLEAR(self->context);
    Py_CLEAR(self->fresh);
    Py_CLEAR(self->fresh_arg);
    Py_CLEAR(self->counters);
    Py_CLEAR(self->scratch);
    return 0;
}

static void
CounterStream_dealloc(CounterStream *self)
{
    PyObject_GC_UnTrack(self);
    Py_CLEAR(self->context);
    Py_CLEAR(self->fresh);
    Py_CLEAR(self->fresh_arg);
    if (self->scratch != NULL) {  /* key stream: not left in freed memory */
        memset(PyByteArray_AS_STRING(self->scratch), 0, PyByteArray_GET_SIZE(self->scratch));
    }
    Py_CLEAR(self->counters);
    Py_CLEAR(self->scratch);
    /* the key stream and counter of a key: not left in freed memory */
    memset(self->keystream, 0, sizeof(self->keystream));
    memset(self->counter, 0, sizeof(self->counter));
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyMethodDef CounterStream_methods[] = {
    {"update", (PyCFunction)CounterStream_update, METH_O,
     "update(data) -> data XOR the next len(data) bytes of key stream"},
    {"update_into", (PyCFunction)(void (*)(void))CounterStream_update_into, METH_FASTCALL,
     "update_into(data, buffer) -> len(data), the result written into buffer"},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject CounterStream_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "accel_agent._speedups.CounterStream",
    .tp_basicsize = sizeof(CounterStream),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "CTR's key stream for any counter block layout, from an ECB context.",
    .tp_new = CounterStream_new,
    .tp_dealloc = (destructor)CounterStream_dealloc,
    .tp_traverse = (traverseproc)CounterStream_traverse,
    .tp_clear = (inquiry)CounterStream_clear,
    .tp_methods = CounterStream_methods,
};

/* ------------------------------------------------------------------ CFB segments */

/* cfb_segments_decrypt(context, window, segment, skip, data[, out]) -> bytes, or len(data)

   CFB decryption with segments of any size, batched: every segment's shift
   register is a block-sized slice of IV || ciphertext, all known before
   decrypting, so their key stream blocks come from one ECB context (CFB
   encryption cannot be batched: each register holds the ciphertext just
   made). window is IV || ciphertext from the start of the segment that
   holds data[0]; skip is data[0]'s offset in that segment; segment is the
   segment size in bytes (1 .. the block size). Segment i's register is
   window[i*segment : i*segment + block_size], the block size being
   len(window) - skip - len(data); byte j of data is XORed with byte
   (skip + j) % segment of its segment's key stream block. Given out (a
   writable buffer of at least len(data) bytes), the result is written there
   and its length returned, as update_into() does. */
#define CFB_CHUNK_SEGMENTS 512

static PyObject *
cfb_segments_decrypt(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 5 && nargs != 6) {
        PyErr_SetString(PyExc_TypeError, "cfb_segments_decrypt() takes 5 or 6 arguments");
        return NULL;
    }
    PyObject *context = args[0];
    Py_ssize_t segment = PyLong_AsSsize_t(args[2]);
    Py_ssize_t skip = PyLong_AsSsize_t(args[3]);
    if ((segment == -1 || skip == -1) && PyErr_Occurred()) {
        return NULL;
    }
    Py_buffer window, data;
    if (PyObject_GetBuffer(args[1], &window, PyBUF_SIMPLE) < 0) {
        return NULL;
    }
    if (PyObject_GetBuffer(args[4], &data, PyBUF_SIMPLE) < 0) {
        PyBuffer_Release(&window);
        return NULL;
    }
    PyObject *out = NULL, *registers = NULL, *stream = NULL;
    Py_buffer target = {0};
    int into = nargs == 6;  /* the result written into args[5] (update_into) */
    if (into && PyObject_GetBuffer(args[5], &target, PyBUF_WRITABLE) < 0) {
        into = 0;
        goto done;
    }
    Py_ssize_t bs = window.len - skip - data.len;
    if (segment < 1 || skip < 0 || skip >= segment || bs < segment || bs > COUNTER_MAX_BLOCK) {
        PyErr_SetString(PyExc_ValueError, "cfb_segments_decrypt(): no window of that shape");
        goto done;
    }
    if (into && target.len < data.len) {
        PyErr_SetString(PyExc_ValueError, "cfb_segments_decrypt(): the output is too small");
        goto done;
    }
    unsigned char *o;
    if (into) {
        o = target.buf;
    }
    else {
        out = PyBytes_FromStringAndSize(NULL, data.len);
        if (out == NULL) {
            goto done;
        }
        o = (unsigned char *)PyBytes_AS_STRING(out);
    }
    const unsigned char *w = window.buf, *in = data.buf;
    Py_ssize_t segments = (skip + data.len + segment - 1) / segment;
    Py_ssize_t chunk = segments < CFB_CHUNK_SEGMENTS ? segments : CFB_CHUNK_SEGMENTS;
    registers = PyByteArray_FromStringAndSize(NULL, chunk * bs);
    stream = PyByteArray_FromStringAndSize(NULL, chunk * bs + bs);
    if (registers == NULL || stream == NULL) {
        Py_CLEAR(out);
        goto done;
    }
    Py_ssize_t j = 0;  /* bytes of data done */
    for (Py_ssize_t first = 0; first < segments; first += chunk) {
        Py_ssize_t count = segments - first < chunk ? segments - first : chunk;
        unsigned char *r = (unsigned char *)PyByteArray_AS_STRING(registers);
        const unsigned char *from = w + first * segment;
        if (bs == 16) {  /* AES: a copy of constant size, inlined */
            for (Py_ssize_t i = 0; i < count; i++) {
                memcpy(r + i * 16, from + i * segment, 16);
            }
        }
        else {
            for (Py_ssize_t i = 0; i < count; i++) {
                memcpy(r + i * bs, from + i * segment, bs);
            }
        }
        PyObject *input = registers;
        if (count != chunk) {  /* the last, shorter chunk: exactly its registers */
            input = PyMemoryView_FromMemory((char *)r, count * bs, PyBUF_READ);
            if (input == NULL) {
                Py_CLEAR(out);
                goto done;
            }
        }
        else {
            Py_INCREF(input);
        }
        PyObject *written =
            PyObject_CallMethodObjArgs(context, str_update_into, input, stream, NULL);
        Py_DECREF(input);
        if (written == NULL) {
            Py_CLEAR(out);
            goto done;
        }
        Py_ssize_t length = PyLong_AsSsize_t(written);
        Py_DECREF(written);
        if (length != count * bs) {
            if (!PyErr_Occurred()) {
                PyErr_SetString(PyExc_ValueError,
                                "cfb_segments_decrypt(): update_into() wrote another length");
            }
            Py_CLEAR(out);
            goto done;
        }
        const unsigned char *ks = (const unsigned char *)PyByteArray_AS_STRING(stream);
        for (Py_ssize_t i = 0; i < count && j < data.len; i++) {
            Py_ssize_t from = (first == 0 && i == 0) ? skip : 0;
            Py_ssize_t n = segment - from;
            if (n > data.len - j) {
                n = data.len - j;
            }
            xor_into(o + j, in + j, ks + i * bs + from, n);
            j += n;
        }
    }
    memset(PyByteArray_AS_STRING(stream), 0, PyByteArray_GET_SIZE(stream));
    if (into) {
        out = PyLong_FromSsize_t(data.len);
    }
done:
    if (into) {
        PyBuffer_Release(&target);
    }
    Py_XDECREF(registers);
    Py_XDECREF(stream);
    PyBuffer_Release(&data);
    PyBuffer_Release(&window);
    return out;
}

/* ------------------------------------------------------------------ inverse_mod

   inverse_mod(a, m): a^-1 mod m, both little-endian bytes of one length (at
   most INVERSE_MAX_BYTES), m odd and 0 < a < m; the result has that length,
   or None when a and m are not coprime.

   The binary extended Euclidean algorithm with Pornin's batching ("Optimized
   Binary GCD for Modular Inversion", 2020): 31 steps at a time run on 64-bit
   approximations of a and b (their top 33 and low 31 bits), which give
   update factors applied to the whole numbers at once. The invariants are
   a = u·x and b = v·x (mod m) for the input x; the loop ends when a is 0,
   with b the gcd and v the inverse. Should the batches ever fail to shrink
   a within the bound (never seen), the plain one-step algorithm finishes.

   Its time depends on a: the one caller (an ECDSA nonce's inverse,
   providers/ecc.py) passes a blinded value k·b mod n, which tells nothing of
   k, and multiplies the result by b. Python's pow(k, -1, n), what the
   pure-Python path uses, takes about 10 times as long for 256 bits.

   It needs 128-bit integers (GCC and Clang on 64-bit targets); without them
   it is left out, and accel_agent.speedups uses pow. */

#ifdef __SIZEOF_INT128__
#define HAVE_INVERSE_MOD 1
#define INVERSE_MAX_LIMBS 9 /* 576 bits: P-521's order has 521 */
#define INVERSE_MAX_BYTES (8 * INVERSE_MAX_LIMBS)
#define BATCH 31            /* steps per batch: the factors stay within 2^31 */
#define LOW_MASK ((UINT64_C(1) << BATCH) - 1)

typedef unsigned __int128 u128;
typedef __int128 s128;

static int
limbs_is_zero(const uint64_t *x, int n)
{
    uint64_t all = 0;
    for (int i = 0; i < n; i++) {
        all |= x[i];
    }
    return all == 0;
}

static int
limbs_is_one(const uint64_t *x, int n)
{
    return x[0] == 1 && (n == 1 || limbs_is_zero(x + 1, n - 1));
}

/* -1, 0 or 1 as x <, = or > y */
static int
limbs_compare(const uint64_t *x, const uint64_t *y, int n)
{
    for (int i = n - 1; i >= 0; i--) {
        if (x[i] != y[i]) {
            return x[i] < y[i] ? -1 : 1;
        }
    }
    return 0;
}

static int
limbs_bits(const uint64_t *x, int n)
{
    for (int i = n - 1; i >= 0; i--) {
        if (x[i]) {
            return 64 * i + 64 - __builtin_clzll(x[i]);
        }
    }
    return 0;
}

/* x += y (n limbs); the carry out */
static uint64_t
limbs_add(uint64_t *x, const uint64_t *y, int n)
{
    u128 acc = 0;
    for (int i = 0; i < n; i++) {
        acc += (u128)x[i] + y[i];
        x[i] = (uint64_t)acc;
        acc >>= 64;
    }
    return (uint64_t)acc;
}

/* x -= y (n limbs); the borrow out */
static uint64_t
limbs_sub(uint64_t *x, const uint64_t *y, int n)
{
    uint64_t borrow = 0;
    for (int i = 0; i < n; i++) {
        uint64_t xi = x[i];
        x[i] = xi - y[i] - borrow;
        borrow = (xi < y[i]) | ((xi == y[i]) & borrow);
    }
    return borrow;
}

/* x = (top, x) >> 1: the bit top (0 or 1) comes in above the n limbs */
static void
limbs_halve(uint64_t *x, int n, uint64_t top)
{
    for (int i = 0; i < n - 1; i++) {
        x[i] = (x[i] >> 1) | (x[i + 1] << 63);
    }
    x[n - 1] = (x[n - 1] >> 1) | (top << 63);
}

/* x = x / 2 mod m, for x < m, m odd */
static void
limbs_halve_mod(uint64_t *x, const uint64_t *m, int n)
{
    limbs_halve(x, n, (x[0] & 1) ? limbs_add(x, m, n) : 0);
}

/* a 64-bit stand-in for x < 2^bits (bits >= 64): its top 33 bits over its low 31 */
static uint64_t
limbs_approximate(const uint64_t *x, int n, int bits)
{
    int start = bits - 64 + BATCH; /* the top 33 bits start here */
    int limb = start / 64, shift = start % 64;
    uint64_t top = x[limb] >> shift;
    if (shift && limb + 1 < n) {
        top |= x[limb + 1] << (64 - shift);
    }
    return (x[0] & LOW_MASK) | (top << BATCH);
}

/* t (n + 1 limbs, two's complement) = f·x + g·y */
static void
limbs_combine(uint64_t *t, const uint64_t *x, const uint64_t *y, int64_t f, int64_t g, int n)
{
    s128 carry = 0;
    for (int i = 0; i < n; i++) {
        s128 acc = carry + (s128)f * (s128)x[i] + (s128)g * (s128)y[i];
        t[i] = (uint64_t)acc;
        carry = acc >> 64; /* arithmetic: GCC and Clang */
    }
    t[n] = (uint64_t)carry;
}

/* out (n limbs) = t >> BATCH, t of n + 1 limbs; the shifted top limb (0, -1 or small) */
static int64_t
limbs_shift_batch(uint64_t *out, const uint64_t *t, int n)
{
    for (int i = 0; i < n; i++) {
        out[i] = (t[i] >> BATCH) | (t[i + 1] << (64 - BATCH));
    }
    return (int64_t)t[n] >> BATCH;
}

static void
limbs_negate(uint64_t *x, int n)
{
    uint64_t carry = 1;
    for (int i = 0; i < n; i++) {
        uint64_t inverted = ~x[i];
        x[i] = inverted + carry;
        carry = carry & (x[i] == 0);
    }
}

/* out = (f·x + g·y) / 2^BATCH, exactly divisible; |result| replaces it. 1 if it was negative. */
static int
limbs_update_value(uint64_t *out, const uint64_t *x, const uint64_t *y, int64_t f, int64_t g,
                   int n)
{
    uint64_t t[INVERSE_MAX_LIMBS + 1];
    limbs_combine(t, x, y, f, g, n);
    if (limbs_shift_batch(out, t, n) < 0) {
        limbs_negate(out, n);
        return 1;
    }
    return 0;
}

/* out = (f·x + g·y) / 2^BATCH mod m, for x, y < m; minus_inverse = -m^-1 mod 2^64 */
static void
limbs_update_residue(uint64_t *out, const uint64_t *x, const uint64_t *y, int64_t f,
                     int64_t g, const uint64_t *m, uint64_t minus_inverse, int n)
{
    uint64_t t[INVERSE_MAX_LIMBS + 1];
    limbs_combine(t, x, y, f, g, n);
    /* add c·m, c < 2^BATCH, making t divisible by 2^BATCH */
    uint64_t c = (t[0] * minus_inverse) & LOW_MASK;
    u128 acc = 0;
    for (int i = 0; i < n; i++) {
        acc += (u128)c * m[i] + t[i];
        t[i] = (uint64_t)acc;
        acc >>= 64;
    }
    t[n] += (uint64_t)acc;
    /* now in (-m, 2m): bring it into [0, m) */
    int64_t top = limbs_shift_batch(out, t, n);
    if (top < 0) {
        limbs_add(out, m, n);
    }
    else if (top > 0 || limbs_compare(out, m, n) >= 0) {
        limbs_sub(out, m, n);
    }
}

/* Both algorithms' start: (u, v) = (a, m), their factors (x1, x2) = (1, 0) */
static void
inverse_start(uint64_t *u, uint64_t *v, uint64_t *x1, uint64_t *x2, const uint64_t *a,
              const uint64_t *m, int n)
{
    memcpy(u, a, sizeof(uint64_t) * n);
    memcpy(v, m, sizeof(uint64_t) * n);
    memset(x1, 0, sizeof(uint64_t) * n);
    memset(x2, 0, sizeof(uint64_t) * n);
    x1[0] = 1;
}

/* The inverse of a (0 < a < m, m odd) into x1, one step at a time (HAC 14.61); 0 if none */
static int
inverse_stepwise(uint64_t *x1, const uint64_t *a, const uint64_t *m, int n)
{
    uint64_t u[INVERSE_MAX_LIMBS], v[INVERSE_MAX_LIMBS], x2[INVERSE_MAX_LIMBS];
    inverse_start(u, v, x1, x2, a, m, n);
    while (!limbs_is_one(u, n) && !limbs_is_one(v, n)) {
        if (limbs_is_zero(u, n) || limbs_is_zero(v, n)) {
            return 0;
        }
        while (!(u[0] & 1)) {
            limbs_halve(u, n, 0);
            limbs_halve_mod(x1, m, n);
        }
        while (!(v[0] & 1)) {
            limbs_halve(v, n, 0);
            limbs_halve_mod(x2, m, n);
        }
        if (limbs_compare(u, v, n) >= 0) {
            limbs_sub(u, v, n);
            if (limbs_sub(x1, x2, n)) {
                limbs_add(x1, m, n);
            }
        }
        else {
            limbs_sub(v, u, n);
            if (limbs_sub(x2, x1, n)) {
                limbs_add(x2, m, n);
            }
        }
    }
    if (!limbs_is_one(u, n)) {
        memcpy(x1, x2, sizeof(uint64_t) * n);
    }
    return 1;
}

/* The inverse of x (0 < x < m, m odd) into v, by batches; 0 if none */
static int
inverse_batched(uint64_t *v, const uint64_t *x, const uint64_t *m, int n)
{
    uint64_t a[INVERSE_MAX_LIMBS], b[INVERSE_MAX_LIMBS], u[INVERSE_MAX_LIMBS];
    uint64_t a2[INVERSE_MAX_LIMBS], b2[INVERSE_MAX_LIMBS], u2[INVERSE_MAX_LIMBS];
    inverse_start(a, b, u, v, x, m, n);
    uint64_t inverse = m[0]; /* m^-1 mod 2^64 by Newton's iteration: 3, 6, ... 96 bits */
    for (int i = 0; i < 5; i++) {
        inverse *= 2 - m[0] * inverse;
    }
    uint64_t minus_inverse = -inverse;
    /* 2·bits - 1 steps suffice exactly; the bound leaves room for the approximations */
    int rounds = (2 * limbs_bits(m, n) + BATCH - 1) / BATCH + 8;
    while (!limbs_is_zero(a, n)) {
        if (rounds-- == 0) {
            return inverse_stepwise(v, x, m, n);
        }
        int bits = limbs_bits(a, n), bits_b = limbs_bits(b, n);
        if (bits_b > bits) {
            bits = bits_b;
        }
        uint64_t ah = a[0], bh = b[0];
        if (bits > 64) {
            ah = limbs_approximate(a, n, bits);
            bh = limbs_approximate(b, n, bits);
        }
        /* Each step: if a is odd, (a, b) = (b, a) when a < b, then a -= b; a /= 2.
           Written with masks: data-dependent branches cost more here, as the
           branch predictor cannot learn them. */
        int64_t f0 = 1, g0 = 0, f1 = 0, g1 = 1;
        for (int i = 0; i < BATCH; i++) {
            uint64_t odd = -(ah & 1);
            uint64_t swap = odd & -(uint64_t)(ah < bh);
            uint64_t t = (ah ^ bh) & swap;
            ah ^= t;
            bh ^= t;
            int64_t tf = (f0 ^ f1) & (int64_t)swap, tg = (g0 ^ g1) & (int64_t)swap;
            f0 ^= tf;
            f1 ^= tf;
            g0 ^= tg;
            g1 ^= tg;
            ah -= bh & odd;
            f0 -= f1 & (int64_t)odd;
            g0 -= g1 & (int64_t)odd;
            ah >>= 1;
            f1 *= 2;
            g1 *= 2;
        }
        if (limbs_update_value(a2, a, b, f0, g0, n)) {
            f0 = -f0;
            g0 = -g0;
        }
        if (limbs_update_value(b2, a, b, f1, g1, n)) {
            f1 = -f1;
            g1 = -g1;
        }
        limbs_update_residue(u2, u, v, f0, g0, m, minus_inverse, n);
        limbs_update_residue(v, u, v, f1, g1, m, minus_inverse, n);
        memcpy(a, a2, sizeof(uint64_t) * n);
        memcpy(b, b2, sizeof(uint64_t) * n);
        memcpy(u, u2, sizeof(uint64_t) * n);
    }
    return limbs_is_one(b, n);
}

static void
limbs_from_le(uint64_t *x, int n, const unsigned char *bytes, Py_ssize_t size)
{
    memset(x, 0, sizeof(uint64_t) * n);
    for (Py_ssize_t i = 0; i < size; i++) {
        x[i / 8] |= (uint64_t)bytes[i] << (8 * (i % 8));
    }
}

static PyObject *
inverse_mod(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs != 2 || !PyBytes_Check(args[0]) || !PyBytes_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError, "inverse_mod() takes two bytes");
        return NULL;
    }
    Py_ssize_t size = PyBytes_GET_SIZE(args[0]);
    if (size != PyBytes_GET_SIZE(args[1]) || size == 0 || size > INVERSE_MAX_BYTES) {
        PyErr_SetString(PyExc_ValueError, "inverse_mod(): the sizes differ or are out of range");
        return NULL;
    }
    int n = (int)((size + 7) / 8);
    uint64_t x[INVERSE_MAX_LIMBS], m[INVERSE_MAX_LIMBS], inverse[INVERSE_MAX_LIMBS];
    limbs_from_le(x, n, (const unsigned char *)PyBytes_AS_STRING(args[0]), size);
    limbs_from_le(m, n, (const unsigned char *)PyBytes_AS_STRING(args[1]), size);
    if (!(m[0] & 1) || limbs_is_zero(x, n) || limbs_compare(x, m, n) >= 0) {
        PyErr_SetString(PyExc_ValueError, "inverse_mod(): needs an odd m and 0 < a < m");
        return NULL;
    }
    if (!inverse_batched(inverse, x, m, n)) {
        Py_RETURN_NONE; /* gcd(a, m) > 1 */
    }
    PyObject *out = PyBytes_FromStringAndSize(NULL, size);
    if (out != NULL) {
        unsigned char *bytes = (unsigned char *)PyBytes_AS_STRING(out);
        for (Py_ssize_t i = 0; i < size; i++) {
            bytes[i] = (unsigned char)(inverse[i / 8] >> (8 * (i % 8)));
        }
    }
    return out;
}
#endif /* __SIZEOF_INT128__ */

static PyMethodDef module_methods[] = {
    {"cfb_segments_decrypt", (PyCFunction)(void (*)(void))cfb_segments_decrypt, METH_FASTCALL,
     "cfb_segments_decrypt(context, window, segment, skip, data) -> CFB decryption, batched"},
    {"stream_update", (PyCFunction)(void (*)(void))stream_update, METH_FASTCALL,
     "stream_update(context, data) -> context.update(data), without its copy"},
    {"hash_class", (PyCFunction)(void (*)(void))hash_class, METH_FASTCALL,
     "hash_class(qualified_name, native_cls) -> a subclass of native_cls and HashCore"},
    {"seal_split", (PyCFunction)(void (*)(void))seal_split, METH_FASTCALL,
     "seal_split(encrypt, nonce, data, aad, mac_len) -> (ct, tag)"},
    {"open_joined", (PyCFunction)(void (*)(void))open_joined, METH_FASTCALL,
     "open_joined(decrypt, nonce, ct, tag, aad) -> decrypt(nonce, ct + tag, aad)"},
#ifdef HAVE_INVERSE_MOD
    {"inverse_mod", (PyCFunction)(void (*)(void))inverse_mod, METH_FASTCALL,
     "inverse_mod(a, m) -> a^-1 mod m (little-endian bytes of one length; variable time)"},
#endif
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef speedups_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "accel_agent._speedups",
    .m_doc = "The agent's compiled per-call fast paths (optional; see accel_agent.speedups).",
    .m_size = -1,
    .m_methods = module_methods,
};

static int
intern_all(void)
{
    struct { PyObject **target; const char *text; } names[] = {
        {&str_digest, "digest"},     {&str_hexdigest, "hexdigest"}, 
        {&str_slot_provider, "provider"}, {&str_nonce, "nonce"},
        {&str_update, "update"},     {&str_update_into, "update_into"},
        {&str_native_from, "_native_from"},
    };
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        *names[i].target = PyUnicode_InternFromString(names[i].text);
        if (*names[i].target == NULL) {
            return -1;
        }
    }
    empty_tuple = PyTuple_New(0);
    long_tag_size = PyLong_FromLong(AEAD_TAG_SIZE);
    /* AeadShape's placeholders: unique objects, compared by identity */
    placeholder_provider = PyUnicode_FromString("<provider>");
    placeholder_key = PyUnicode_FromString("<key>");
    placeholder_nonce = PyUnicode_FromString("<nonce>");
    placeholder_keywords = PyUnicode_FromString("<keywords>");
    placeholder_fresh = PyUnicode_FromString("<fresh>");
    return (empty_tuple && long_tag_size && placeholder_provider && placeholder_key
            && placeholder_nonce && placeholder_keywords && placeholder_fresh) ? 0 : -1;
}

PyMODINIT_FUNC
PyInit__speedups(void)
{
    if (intern_all() < 0) {
        return NULL;
    }
    PyTypeObject *types[] = {&HashCore_Type, &HashNew_Type, &GcmNew_Type, &CounterStream_Type,
                             &EcbMethod_Type};
    for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
        if (PyType_Ready(types[i]) < 0) {
            return NULL;
        }
    }
    if (PyType_Ready(&Window_Type) < 0) {
        return NULL;
    }
    PyObject *module = PyModule_Create(&speedups_module);
    if (module == NULL) {
        return NULL;
    }
    if (PyModule_AddIntConstant(module, "STREAM_COPY_SAVED_FROM", STREAM_COPY_SAVED_FROM) < 0) {
        Py_DECREF(module);
        return NULL;
    }
    const char *placeholder_names[] = {"PROVIDER", "KEY", "NONCE", "KEYWORDS", "FRESH"};
    PyObject *placeholders[] = {placeholder_provider, placeholder_key, placeholder_nonce,
                                placeholder_keywords, placeholder_fresh};
    for (size_t i = 0; i < sizeof(placeholders) / sizeof(placeholders[0]); i++) {
        Py_INCREF(placeholders[i]);
        if (PyModule_AddObject(module, placeholder_names[i], placeholders[i]) < 0) {
            Py_DECREF(placeholders[i]);
            Py_DECREF(module);
            return NULL;
        }
    }
    const char *type_names[] = {"HashCore", "HashNew", "GcmNew", "CounterStream", "EcbMethod"};
    for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
        Py_INCREF(types[i]);
        if (PyModule_AddObject(module, type_names[i], (PyObject *)types[i]) < 0) {
            Py_DECREF(types[i]);
            Py_DECREF(module);
            return NULL;
        }
    }
    if (add_chacha_types(module) < 0) {
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
