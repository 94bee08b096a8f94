/**
 * The messages of error answers in the caller's language. Routes, the validation hook and the
 * database's procedures all write English; the one error handler (api/errors.ts) passes the answer's
 * `message` and every string of its `errors` through `localise` at the end, so no other place
 * translates. A message is looked up by its exact English text, then by the patterns of the
 * messages that carry a value (`Only 46 in stock.`), whose numbers and amounts are written the
 * caller's way in both languages: `46`, never `46.000`; `149 750 FCFA` in French, `149,750 FCFA` in
 * English. An English message with no entry goes out as it came: a missing translation is never an
 * error.
 */
import { DECIMAL_MARK, groupDigits } from '../receipts/format.ts';
import type { Locale } from './locale.ts';

type Render = (locale: Locale, ...values: string[]) => string;

/** A decimal as the database or the code wrote it (`46.000`, `-1500`), in the caller's way; anything else as it is. */
export function formatNumber(text: string, locale: Locale): string {
  const match = /^(-?)(\d+)(?:\.(\d+))?$/.exec(text);
  if (!match) return text;
  const [, sign, whole, fraction = ''] = match;
  const decimals = fraction.replace(/0+$/, '');
  return `${sign}${groupDigits(whole!, locale)}${decimals ? DECIMAL_MARK[locale] + decimals : ''}`;
}

/** Integer XAF as people in the CFA franc zone write it: `149 750 FCFA` / `149,750 FCFA`. */
export const formatXaf = (text: string, locale: Locale): string => `${formatNumber(text, locale)} FCFA`;

const plural = (count: string, one: string, many: string, locale: Locale) =>
  (locale === 'fr' ? Math.abs(Number(count)) < 2 : Number(count) === 1) ? one : many;

/** Messages with no value in them: English, then French. */
const FIXED: Record<string, string> = {
  // CONTRACT section 2 and the other fixed answers of api/errors.ts.
  'Malformed JSON.': 'JSON mal formé.',
  'Unauthenticated.': 'Non authentifié.',
  // The CONTRACT gives this code a French text: it is that text in both languages.
  "Identifiants de l'appareil manquants.": "Identifiants de l'appareil manquants.",
  'These credentials do not match our records.': 'Ces identifiants ne correspondent à aucun compte.',
  'Subscription required.': 'Abonnement requis.',
  'This action is unauthorized.': 'Action non autorisée.',
  'Not found.': 'Introuvable.',
  'No pairing request with this code.': "Aucune demande d'appairage ne porte ce code.",
  'Method not allowed.': 'Méthode non autorisée.',
  'Payload too large.': 'Requête trop volumineuse.',
  'Unsupported media type: send application/json.': 'Type de contenu non pris en charge : envoyez application/json.',
  'The given data was invalid.': 'Les données fournies sont invalides.',
  'Too many attempts.': 'Trop de tentatives.',
  'Server Error.': 'Erreur du serveur.',
  'Service temporarily unavailable: try again shortly.': 'Service momentanément indisponible : réessayez dans un instant.',
  'Bad request.': 'Requête invalide.',
  'Request timeout.': 'Délai de la requête dépassé.',
  'Request header fields too large.': 'En-têtes de la requête trop volumineux.',

  // The validation hook (api/validation.ts) and the schemas' own messages.
  'This field is required.': 'Ce champ est obligatoire.',
  'Unknown field.': 'Champ inconnu.',
  'Must be a valid e-mail address.': 'Doit être une adresse e-mail valide.',
  'Must be a valid UUID.': 'Doit être un UUID valide.',
  'Must be a valid ISO-8601 date.': 'Doit être une date ISO-8601 valide.',
  'Must not contain a NUL character or an unpaired surrogate.': 'Ne doit contenir ni caractère NUL ni demi-code de substitution isolé.',
  'Must be valid UTF-8.': 'Doit être un texte UTF-8 valide.',
  'Must be on or after from.': 'Doit être égal ou postérieur à from.',
  'Must be on or after 2000-01-01.': 'Doit être le 2000-01-01 ou une date postérieure.',
  'Must be 2000-01 or later.': 'Doit être 2000-01 ou un mois postérieur.',
  'Must not be 0.': 'Ne doit pas valoir 0.',
  'Keys must be unique.': 'Les clés doivent être uniques.',
  'Thresholds must be unique.': 'Les seuils doivent être uniques.',
  'The lowest tier must start at 0 points.': 'Le premier palier doit commencer à 0 point.',
  'Must equal counted_cash_xaf: both are the cash counted.': 'Doit être égal à counted_cash_xaf : les deux sont les espèces comptées.',
  'Must be a time as HH:MM.': 'Doit être une heure au format HH:MM.',
  'A promotion on the whole sale must be a percent: name products, categories or variants for the other kinds.':
    'Une promotion sur toute la vente doit être un pourcentage : nommez des produits, des catégories ou des variantes pour les autres types.',
  'A percent must be more than 0 and at most 100.': 'Un pourcentage doit être supérieur à 0 et au plus 100.',
  'Must be a whole number of XAF, at least 1.': 'Doit être un nombre entier de FCFA, au moins 1.',
  'Must be a whole number of XAF.': 'Doit être un nombre entier de FCFA.',
  'The free quantity must be a whole number, at least 1.': 'La quantité offerte doit être un nombre entier, au moins 1.',
  'The quantity to buy must be a whole number, at least 1.': 'La quantité à acheter doit être un nombre entier, au moins 1.',
  'Must be after starts_at.': 'Doit être postérieur à starts_at.',
  'Give both starts_time and ends_time, or neither.': 'Indiquez starts_time et ends_time, ou aucun des deux.',
  'Must differ from starts_time.': 'Doit différer de starts_time.',
  'Must equal partner_id when both are given.': 'Doit être égal à partner_id quand les deux sont indiqués.',
  'Required when ids is absent.': 'Obligatoire quand ids est absent.',
  'At most 4 axes.': 'Au plus 4 axes.',
  'Values must be unique within an option.': "Les valeurs d'une option doivent être uniques.",
  'Option names must be unique.': 'Les noms des options doivent être uniques.',
  'Give month, or from and to, not both.': 'Indiquez month, ou from et to, pas les deux.',
  'Give after or cursor, not both.': 'Indiquez after ou cursor, pas les deux.',
  'Required with from.': 'Obligatoire avec from.',
  'Required with to.': 'Obligatoire avec to.',
  'Must be a month, YYYY-MM.': 'Doit être un mois, AAAA-MM.',
  'Must be 1 to 200 characters.': 'Doit contenir de 1 à 200 caractères.',

  // The routes' own refusals (invalidField, errors.conflict, errors.invalid).
  'No customer holds this card.': 'Aucun client ne détient cette carte.',
  'This sale was made for another customer.': 'Cette vente a été faite pour un autre client.',
  'This sale is voided.': 'Cette vente est annulée.',
  'This sale was refunded in full: it earns no points.': 'Cette vente a été entièrement remboursée : elle ne rapporte aucun point.',
  'The email has already been taken.': 'Cette adresse e-mail est déjà utilisée.',
  'This password reset token is invalid or has expired.': 'Ce jeton de réinitialisation du mot de passe est invalide ou a expiré.',
  'This Idempotency-Key was already used with another request.': 'Cette Idempotency-Key a déjà servi pour une autre requête.',
  'This card number is already held by another customer.': 'Ce numéro de carte est déjà détenu par un autre client.',
  'The current password is incorrect.': 'Le mot de passe actuel est incorrect.',
  'No such category in this shop.': "Cette catégorie n'existe pas dans cette boutique.",
  'A category cannot be inside itself or one of its subcategories.': "Une catégorie ne peut être placée ni dans elle-même ni dans l'une de ses sous-catégories.",
  'This category still holds products or subcategories.': 'Cette catégorie contient encore des produits ou des sous-catégories.',
  'Give either customer_id or name (exactly one).': 'Indiquez customer_id ou name (un seul des deux).',
  'No such customer in this shop.': "Ce client n'existe pas dans cette boutique.",
  'This customer holds no loyalty card yet.': "Ce client n'a pas encore de carte de fidélité.",
  'Give an e-mail address: this sale has no customer with one.': "Indiquez une adresse e-mail : cette vente n'a pas de client qui en ait une.",
  'This plan does not exist.': "Cette formule n'existe pas.",
  'No active mobile-money account exists for this number.': "Aucun compte mobile money actif n'existe pour ce numéro.",
  'No such record in this shop.': "Cet enregistrement n'existe pas dans cette boutique.",
  'No such product or variant in this shop.': "Ce produit ou cette variante n'existe pas dans cette boutique.",
  'No such user in this shop.': "Cet utilisateur n'existe pas dans cette boutique.",
  'This customer was deleted on the server.': 'Ce client a été supprimé sur le serveur.',
  'The code has already been taken.': 'Ce code est déjà utilisé.',
  'This partner does not exist.': "Ce partenaire n'existe pas.",
  'This commission line does not exist.': "Cette ligne de commission n'existe pas.",
  "This line is another partner's.": 'Cette ligne appartient à un autre partenaire.',
  'A payout reference goes with status paid only.': "Une référence de paiement ne va qu'avec le statut paid.",
  'Every line named is paid already: a paid line is final, and nothing was changed.': "Toutes les lignes indiquées sont déjà payées : une ligne payée est définitive, rien n'a été modifié.",
  'This commission line is paid: a paid line is final.': 'Cette ligne de commission est payée : une ligne payée est définitive.',
  'Give the product its options first (POST /products/{product_id}/options).': "Donnez d'abord ses options au produit (POST /products/{product_id}/options).",
  'The product has no such option.': "Le produit n'a pas cette option.",
  'This product holds stock of its own: bring it to 0 before giving it variants.': 'Ce produit a un stock propre : ramenez-le à 0 avant de lui donner des variantes.',
  'This variant still holds stock: bring it to 0 (adjust or stocktake) before deleting it.':
    'Cette variante a encore du stock : ramenez-le à 0 (ajustement ou inventaire) avant de la supprimer.',
  'This product already has a variant with these options.': 'Ce produit a déjà une variante avec ces options.',
  'The cursor is not valid.': "Le curseur n'est pas valide.",
  'Cannot be after today.': "Ne peut pas être postérieur à aujourd'hui.",
  // PUT /shop/logo (api/shop/logo.ts).
  'Unsupported media type: send the image as image/png or image/jpeg.': "Type de contenu non pris en charge : envoyez l'image en image/png ou image/jpeg.",
  "The body is empty: send the image's bytes.": "Le corps de la requête est vide : envoyez les octets de l'image.",
  'Must be a PNG or JPEG image.': 'Doit être une image PNG ou JPEG.',
  'The image is damaged, cut short or followed by other data: save it again as PNG or JPEG.':
    "L'image est endommagée, tronquée ou suivie d'autres données : enregistrez-la de nouveau en PNG ou en JPEG.",
  'This JPEG cannot be printed (12-bit, lossless, hierarchical or arithmetic-coded): save it as an ordinary JPEG.':
    'Ce JPEG ne peut pas être imprimé (12 bits, sans perte, hiérarchique ou à codage arithmétique) : enregistrez-le en JPEG ordinaire.',
  'The image must be at most 4096 pixels wide and 4096 pixels high.': "L'image doit mesurer au plus 4096 pixels de large et 4096 pixels de haut.",
  'The image is too elongated for a logo: its width may be at most 8 times its height, and its height at most 8 times its width.':
    "L'image est trop allongée pour un logo : sa largeur peut valoir au plus 8 fois sa hauteur, et sa hauteur au plus 8 fois sa largeur.",
  'The Content-Type does not say what the bytes are: send a PNG as image/png and a JPEG as image/jpeg.':
    'Le Content-Type ne correspond pas au contenu : envoyez un PNG en image/png et un JPEG en image/jpeg.',

  // The database's procedures (raise_app_error in db/functions).
  'The points of this sale have already been credited.': 'Les points de cette vente ont déjà été crédités.',
  'Must be an IANA time zone, such as Africa/Douala.': 'Doit être un fuseau horaire IANA, comme Africa/Douala.',
  'The sale is too large to record.': 'La vente est trop importante pour être enregistrée.',
  "The shop's last owner cannot be removed or demoted.": 'Le dernier propriétaire de la boutique ne peut être ni retiré ni rétrogradé.',
  'Points can only be redeemed for a named customer.': "Les points ne s'utilisent que pour un client nommé.",
  'This quote was converted into a sale: its status can no longer change.': 'Ce devis a été converti en vente : son statut ne peut plus changer.',
  'Credit cannot exceed what is left to pay.': 'Le crédit ne peut pas dépasser le reste à payer.',
  'Only cash can be given back as change.': 'Seules les espèces peuvent être rendues en monnaie.',
  'You have no open shift to close.': "Vous n'avez pas de session de caisse ouverte à fermer.",
  'You already have an open shift: close it before opening another.': "Vous avez déjà une session de caisse ouverte : fermez-la avant d'en ouvrir une autre.",
  'This quote was already converted into a sale.': 'Ce devis a déjà été converti en vente.',
  'This product does not track stock.': "Ce produit n'est pas suivi en stock.",
  "The server's record changed since this version: reconcile with it.": 'La fiche a changé sur le serveur depuis cette version : rapprochez les deux versions.',
  'Open a shift first: drawer cash belongs to a shift.': "Ouvrez d'abord une session de caisse : l'argent du tiroir appartient à une session.",
  'Open a shift first: the cash this sale took goes back from a drawer.': "Ouvrez d'abord une session de caisse : l'argent liquide de cette vente est rendu depuis un tiroir.",
  'Open a shift first: a cash refund is paid out of a drawer.': "Ouvrez d'abord une session de caisse : un remboursement en espèces sort d'un tiroir.",
  'This quote was declined.': 'Ce devis a été refusé.',
  'This sale is already voided.': 'Cette vente est déjà annulée.',
  'This product does not exist in this shop.': "Ce produit n'existe pas dans cette boutique.",
  'This product keeps its stock on its variants: name one.': 'Ce produit tient son stock sur ses variantes : indiquez-en une.',
  'This sale has refunds: it can no longer be voided.': 'Cette vente a des remboursements : elle ne peut plus être annulée.',
  'Part of this credit sale has already been paid: refund it instead.': 'Une partie de cette vente à crédit a déjà été payée : remboursez-la plutôt.',
  'This item is not part of this stocktake.': 'Cet article ne fait pas partie de cet inventaire.',
  'This variant does not belong to this product.': "Cette variante n'appartient pas à ce produit.",
  'The period cannot be longer than 1,096 days (3 years).': 'La période ne peut pas dépasser 1 096 jours (3 ans).',
  'This SKU is already used by another product or variant.': 'Ce SKU est déjà utilisé par un autre produit ou une autre variante.',
  'This barcode is already used by another product or variant.': 'Ce code-barres est déjà utilisé par un autre produit ou une autre variante.',
  'No such supplier in this shop.': "Ce fournisseur n'existe pas dans cette boutique.",
  'This sale is voided: nothing is left to refund.': 'Cette vente est annulée : il ne reste rien à rembourser.',
  'This sale is already fully refunded.': 'Cette vente est déjà entièrement remboursée.',
  'This item is not part of this sale.': 'Cet article ne fait pas partie de cette vente.',
  'Cannot be after the current month.': 'Ne peut pas être postérieur au mois en cours.',
  'This line is not part of this purchase.': 'Cette ligne ne fait pas partie de cet achat.',
  'No such variant in this shop.': "Cette variante n'existe pas dans cette boutique.",
  'No such product in this shop.': "Ce produit n'existe pas dans cette boutique.",
  'No such variant of this product.': "Ce produit n'a pas cette variante.",
  'This product is sold by variant: name one.': 'Ce produit se vend par variante : indiquez-en une.',
  'A line names a product, a variant, or at least what it is.': "Une ligne indique un produit, une variante, ou au moins ce qu'elle est.",
  'Only goods whose stock is tracked come in batches.': 'Seuls les articles suivis en stock viennent par lots.',
  'A sale with this id was already recorded with other details.': "Une vente portant cet identifiant a déjà été enregistrée avec d'autres détails.",
  "Only what this sale still owes on the customer's account can be refunded to it.":
    'Seul ce que cette vente doit encore sur le compte du client peut y être remboursé.',
  'The purchase is too large to record.': "L'achat est trop important pour être enregistré.",
  'The stock would be too large to record.': 'Le stock serait trop important pour être enregistré.',
  'A variant needs its product_id.': 'Une variante a besoin de son product_id.',
  'A line without a product needs a name and a unit price.': "Une ligne sans produit a besoin d'un nom et d'un prix unitaire.",
  'No such device in this shop.': "Cet appareil n'existe pas dans cette boutique.",
  'This device was revoked.': 'Cet appareil a été révoqué.',

  // Certified invoicing (api/fiscal/certification-routes.ts).
  'This service certifies with no tax authority (FISCAL_PROVIDER is none).':
    'Ce service ne certifie auprès d\'aucune administration fiscale (FISCAL_PROVIDER vaut none).',
  'Only a rejected record can be sent again.': 'Seul un document refusé peut être renvoyé.',
  'Only a record whose answer was lost waits for the owner\'s word.': 'Seul un document dont la réponse s\'est perdue attend la décision du propriétaire.',
  'An IFU is 13 digits.': 'Un IFU compte 13 chiffres.',
  'An NCC is letters and digits, at most 20.': 'Un NCC est fait de lettres et de chiffres, 20 au plus.',
  'The authority_no field is required when the record was found.': 'Le champ authority_no est obligatoire quand le document a été trouvé.',
  'The qr field is required when the record was found.': 'Le champ qr est obligatoire quand le document a été trouvé.',

  // zod's own messages that carry no value (the issues the validation hook leaves to zod).
  'Invalid input': 'Entrée invalide',
  'Invalid input: more than one option matched': 'Entrée invalide : plusieurs options correspondent',
  'Invalid email address': 'Adresse e-mail invalide',
  'Invalid UUID': 'UUID invalide',
  'Invalid URL': 'URL invalide',
  'Invalid ISO datetime': 'Date et heure ISO invalides',
  'Invalid ISO date': 'Date ISO invalide',
  'Invalid ISO time': 'Heure ISO invalide',
};

const QUOTE_STATUS: Record<string, string> = { draft: 'en brouillon', sent: 'envoyé', declined: 'refusé', expired: 'expiré', converted: 'converti' };
const STOCKTAKE_STATUS: Record<string, string> = { open: 'ouvert', committed: 'validé', cancelled: 'annulé' };
const TYPE_FR: Record<string, string> = {
  'a string': 'une chaîne de caractères',
  'a number': 'un nombre',
  'an integer': 'un nombre entier',
  'true or false': 'true ou false',
  'a list': 'une liste',
  'an object': 'un objet',
};
const UNIT_FR: Record<string, [string, string]> = { character: ['caractère', 'caractères'], item: ['élément', 'éléments'], byte: ['octet', 'octets'] };
const BOUND_FR: Record<string, [number: string, size: string]> = {
  'at least': ['supérieur ou égal à', 'au moins'],
  'more than': ['supérieur à', 'plus de'],
  'at most': ['inférieur ou égal à', 'au plus'],
  'less than': ['inférieur à', 'moins de'],
};
const ISO_DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Messages that carry values: the English pattern, and the message written in either language. */
const PATTERNS: Array<[RegExp, Render]> = [
  // The validation hook's messages with a bound or a list in them.
  [/^Must be (a string|a number|an integer|true or false|a list|an object)\.$/, (l, type) => (l === 'fr' ? `Doit être ${TYPE_FR[type!]}.` : `Must be ${type}.`)],
  [/^Must be of type (\S+)\.$/, (l, type) => (l === 'fr' ? `Doit être de type ${type}.` : `Must be of type ${type}.`)],
  [
    /^Must be (at least|more than|at most|less than) (\S+?)(?: (character|item|byte)s?)?\.$/,
    (l, bound, n, unit) => {
      const count = formatNumber(n!, l);
      const en = unit ? ` ${unit}${Number(n) === 1 ? '' : 's'}` : '';
      if (l === 'en') return `Must be ${bound} ${count}${en}.`;
      const [asNumber, asSize] = BOUND_FR[bound!]!;
      if (!unit) return `Doit être ${asNumber} ${count}.`;
      const [one, many] = UNIT_FR[unit]!;
      return `Doit contenir ${asSize} ${count} ${plural(n!, one, many, l)}.`;
    },
  ],
  [/^Must have at most (\d+) decimals\.$/, (l, n) => (l === 'fr' ? `Doit avoir au plus ${n} décimales.` : `Must have at most ${n} decimals.`)],
  [/^Must be a valid (.+)\.$/, (l, format) => (l === 'fr' ? `Doit être au format ${format}.` : `Must be a valid ${format}.`)],
  [/^Must be one of: (.+)\.$/, (l, values) => (l === 'fr' ? `Doit être l'une des valeurs : ${values}.` : `Must be one of: ${values}.`)],
  [/^Must be a multiple of (\S+)\.$/, (l, n) => (l === 'fr' ? `Doit être un multiple de ${formatNumber(n!, l)}.` : `Must be a multiple of ${formatNumber(n!, l)}.`)],

  // The routes' refusals with an amount or a count.
  [
    /^This customer owes (\S+) XAF: settle it before deleting\.$/,
    (l, a) => (l === 'fr' ? `Ce client doit ${formatXaf(a!, l)} : réglez cette somme avant de le supprimer.` : `This customer owes ${formatXaf(a!, l)}: settle it before deleting.`),
  ],
  [
    /^The shop still owes this supplier (\S+) XAF: pay it before deleting the supplier\.$/,
    (l, a) =>
      l === 'fr'
        ? `La boutique doit encore ${formatXaf(a!, l)} à ce fournisseur : réglez cette somme avant de le supprimer.`
        : `The shop still owes this supplier ${formatXaf(a!, l)}: pay it before deleting the supplier.`,
  ],
  [
    /^This supplier still owes the shop (\S+) XAF: settle it before deleting the supplier\.$/,
    (l, a) =>
      l === 'fr'
        ? `Ce fournisseur doit encore ${formatXaf(a!, l)} à la boutique : réglez cette somme avant de le supprimer.`
        : `This supplier still owes the shop ${formatXaf(a!, l)}: settle it before deleting the supplier.`,
  ],
  [
    /^These options make (\S+) combinations; at most (\S+) are allowed\.$/,
    (l, n, max) =>
      l === 'fr'
        ? `Ces options font ${formatNumber(n!, l)} combinaisons ; au plus ${formatNumber(max!, l)} sont permises.`
        : `These options make ${formatNumber(n!, l)} combinations; at most ${formatNumber(max!, l)} are allowed.`,
  ],

  // The database's refusals with a value.
  [/^Only (\S+) in stock\.$/, (l, q) => (l === 'fr' ? `Seulement ${formatNumber(q!, l)} en stock.` : `Only ${formatNumber(q!, l)} in stock.`)],
  [/^Only (\S+) left of batch (.+)\.$/, (l, q, batch) => (l === 'fr' ? `Il ne reste que ${formatNumber(q!, l)} du lot ${batch}.` : `Only ${formatNumber(q!, l)} left of batch ${batch}.`)],
  [
    /^Only (\S+) of this item are left to refund\.$/,
    (l, q) => (l === 'fr' ? `Il ne reste que ${formatNumber(q!, l)} de cet article à rembourser.` : `Only ${formatNumber(q!, l)} of this item are left to refund.`),
  ],
  [
    /^Only (\S+) of this line are left to return\.$/,
    (l, q) => (l === 'fr' ? `Il ne reste que ${formatNumber(q!, l)} de cette ligne à retourner.` : `Only ${formatNumber(q!, l)} of this line are left to return.`),
  ],
  [
    /^The customer has (\S+) points\.$/,
    (l, n) => (l === 'fr' ? `Le client a ${formatNumber(n!, l)} ${plural(n!, 'point', 'points', l)}.` : `The customer has ${formatNumber(n!, l)} ${plural(n!, 'point', 'points', l)}.`),
  ],
  [
    /^These points are worth (\S+) XAF, more than the sale \((\S+) XAF\)\.$/,
    (l, a, b) => (l === 'fr' ? `Ces points valent ${formatXaf(a!, l)}, plus que la vente (${formatXaf(b!, l)}).` : `These points are worth ${formatXaf(a!, l)}, more than the sale (${formatXaf(b!, l)}).`),
  ],
  [
    /^The payments are (\S+) XAF short: only a named customer may buy on credit\.$/,
    (l, a) =>
      l === 'fr'
        ? `Il manque ${formatXaf(a!, l)} aux paiements : seul un client nommé peut acheter à crédit.`
        : `The payments are ${formatXaf(a!, l)} short: only a named customer may buy on credit.`,
  ],
  [
    /^This would bring the balance to (\S+) XAF, over the credit ceiling of (\S+) XAF\.$/,
    (l, a, b) =>
      l === 'fr'
        ? `Le solde passerait à ${formatXaf(a!, l)}, au-delà du plafond de crédit de ${formatXaf(b!, l)}.`
        : `This would bring the balance to ${formatXaf(a!, l)}, over the credit ceiling of ${formatXaf(b!, l)}.`,
  ],
  [
    /^Only (\S+) XAF remain to pay on this purchase\.$/,
    (l, a) => (l === 'fr' ? `Il ne reste que ${formatXaf(a!, l)} à payer sur cet achat.` : `Only ${formatXaf(a!, l)} remain to pay on this purchase.`),
  ],
  [
    /^The customer owes (\S+) XAF: a settlement cannot be more\.$/,
    (l, a) => (l === 'fr' ? `Le client doit ${formatXaf(a!, l)} : un règlement ne peut pas dépasser ce montant.` : `The customer owes ${formatXaf(a!, l)}: a settlement cannot be more.`),
  ],
  [
    /^A cashier may take at most (\S+)% off a line: (\S+) XAF here\.$/,
    (l, p, a) =>
      l === 'fr'
        ? `Un caissier peut accorder au plus ${formatNumber(p!, l)} % de remise sur une ligne : ${formatXaf(a!, l)} ici.`
        : `A cashier may take at most ${formatNumber(p!, l)}% off a line: ${formatXaf(a!, l)} here.`,
  ],
  [
    /^This quote is (\S+): it can no longer be changed\.$/,
    (l, s) => (l === 'fr' ? `Ce devis est ${QUOTE_STATUS[s!] ?? s} : il ne peut plus être modifié.` : `This quote is ${s}: it can no longer be changed.`),
  ],
  [
    /^This quote was valid until (\S+)\.$/,
    (l, day) => (l === 'fr' ? `Ce devis était valable jusqu'au ${day!.replace(ISO_DAY, '$3/$2/$1')}.` : `This quote was valid until ${day}.`),
  ],
  [
    /^This stocktake is (\S+) and cannot be cancelled\.$/,
    (l, s) => (l === 'fr' ? `Cet inventaire est ${STOCKTAKE_STATUS[s!] ?? s} et ne peut pas être annulé.` : `This stocktake is ${s} and cannot be cancelled.`),
  ],
  [
    /^This stocktake is (\S+) and cannot be committed\.$/,
    (l, s) => (l === 'fr' ? `Cet inventaire est ${STOCKTAKE_STATUS[s!] ?? s} et ne peut pas être validé.` : `This stocktake is ${s} and cannot be committed.`),
  ],
  [
    /^This stocktake is (\S+): counts can no longer change\.$/,
    (l, s) => (l === 'fr' ? `Cet inventaire est ${STOCKTAKE_STATUS[s!] ?? s} : les comptages ne peuvent plus changer.` : `This stocktake is ${s}: counts can no longer change.`),
  ],

  [
    /^The (\S+) field is required to enable certification with this authority\.$/,
    (l, field) => (l === 'fr' ? `Le champ ${field} est obligatoire pour certifier auprès de cette administration.` : `The ${field} field is required to enable certification with this authority.`),
  ],
  [
    /^The VAT rate (\S+) % has no tax group at (.+), with which this shop certifies its sales\.$/,
    (l, rate, authority) =>
      l === 'fr'
        ? `Le taux de TVA ${formatNumber(rate!, l)} % n'a pas de groupe de taxation chez ${authority}, qui certifie les ventes de cette boutique.`
        : `The VAT rate ${rate} % has no tax group at ${authority}, with which this shop certifies its sales.`,
  ],
  [
    /^These VAT rates have no tax group at (.+?): (.+)\. Change them before enabling certification\.$/,
    (l, authority, rates) =>
      l === 'fr'
        ? `Ces taux de TVA n'ont pas de groupe de taxation chez ${authority.replace(/^the simulator$/, 'le simulateur')} : ${rates}. Changez-les avant d'activer la certification.`
        : `These VAT rates have no tax group at ${authority}: ${rates}. Change them before enabling certification.`,
  ],

  // zod's own messages (node_modules/zod/v4/locales/en.js), in the words of its French locale.
  [/^Invalid input: expected (\S+), received (\S+)$/, (l, e, r) => (l === 'fr' ? `Entrée invalide : ${e} attendu, ${r} reçu` : `Invalid input: expected ${e}, received ${r}`)],
  [/^Invalid option: expected one of (.+)$/, (l, v) => (l === 'fr' ? `Option invalide : une valeur parmi ${v} attendue` : `Invalid option: expected one of ${v}`)],
  [/^Invalid input: expected (.+)$/, (l, v) => (l === 'fr' ? `Entrée invalide : ${v} attendu` : `Invalid input: expected ${v}`)],
  [
    /^Too (big|small): expected (\S+) to (have|be) (exactly |<=|>=|<|>)(\S+)(?: (\S+))?$/,
    (l, size, origin, verb, adj, n, unit) => {
      const count = formatNumber(n!, l);
      if (l === 'en') return `Too ${size}: expected ${origin} to ${verb} ${adj}${count}${unit ? ` ${unit}` : ''}`;
      const units: Record<string, string> = { characters: 'caractères', items: 'éléments', bytes: 'octets', entries: 'entrées' };
      const head = size === 'big' ? 'Trop grand' : 'Trop petit';
      return `${head} : ${origin} doit ${verb === 'have' ? 'avoir' : 'être'} ${adj === 'exactly ' ? 'exactement ' : adj}${count}${unit ? ` ${units[unit] ?? unit}` : ''}`;
    },
  ],
  [
    /^Invalid string: must (start with|end with|include|match pattern) (.+)$/,
    (l, how, what) => {
      if (l === 'en') return `Invalid string: must ${how} ${what}`;
      const verbs: Record<string, string> = { 'start with': 'commencer par', 'end with': 'se terminer par', include: 'inclure', 'match pattern': 'correspondre au motif' };
      return `Chaîne de caractères invalide : doit ${verbs[how!]} ${what}`;
    },
  ],
  [/^Invalid number: must be a multiple of (\S+)$/, (l, n) => (l === 'fr' ? `Nombre invalide : doit être un multiple de ${formatNumber(n!, l)}` : `Invalid number: must be a multiple of ${formatNumber(n!, l)}`)],
  [/^Unrecognized keys?: (.+)$/, (l, keys) => (l === 'fr' ? `Clé(s) non reconnue(s) : ${keys}` : `Unrecognized key${keys!.includes(', ') ? 's' : ''}: ${keys}`)],
  [/^Invalid key in (\S+)$/, (l, origin) => (l === 'fr' ? `Clé invalide dans ${origin}` : `Invalid key in ${origin}`)],
  [/^Invalid value in (\S+)$/, (l, origin) => (l === 'fr' ? `Valeur invalide dans ${origin}` : `Invalid value in ${origin}`)],
  [/^Invalid discriminator value\. Expected (.+)$/, (l, v) => (l === 'fr' ? `Valeur discriminante invalide : ${v} attendu` : `Invalid discriminator value. Expected ${v}`)],
  [/^Invalid (.+)$/, (l, format) => (l === 'fr' ? `${format} invalide` : `Invalid ${format}`)],
];

/** `message` (English, as routes, the validation hook and the database write it) in `locale`. */
export function localise(message: string, locale: Locale): string {
  const fixed = FIXED[message];
  if (fixed !== undefined) return locale === 'fr' ? fixed : message;
  for (const [pattern, render] of PATTERNS) {
    const match = pattern.exec(message);
    if (match) return render(locale, ...match.slice(1).map((value) => value ?? ''));
  }
  return message;
}

/** Whether `message` has a French text: the catalogue's completeness test asks it. */
export function hasFrench(message: string): boolean {
  return FIXED[message] !== undefined || PATTERNS.some(([pattern]) => pattern.test(message));
}
