import { defineIntent } from '../phrasing';

/**
 * Follow-up turns of the missing-parameter variant: the user gives the value
 * the previous request left out. Each takes one slot, `{value}`. The last
 * phrasing of each is held out, like every intent's.
 */
export const supplyIntents = {
  fileName: defineIntent('supply.file-name', [
    'Call it {value}.',
    'The file name is {value}.',
    'Use the name {value}.',
    'Oh right, the file should be {value}.',
  ]),
  folderName: defineIntent('supply.folder-name', [
    'Name the folder {value}.',
    'The folder name is {value}.',
    'Call the folder {value}.',
    'Oh right, the folder should be {value}.',
  ]),
  text: defineIntent('supply.text', [
    "The text is '{value}'.",
    "Use '{value}'.",
    "Make it say '{value}'.",
    "Sorry, I meant to say '{value}'.",
  ]),
  person: defineIntent('supply.person', [
    'It is {value}.',
    'Send it to {value}.',
    'The recipient is {value}.',
    'Sorry, I meant {value}.',
  ]),
  account: defineIntent('supply.account', [
    'The account is {value}.',
    'It is {value}.',
    'I mean {value}.',
    'Sorry, that would be {value}.',
  ]),
  searchWord: defineIntent('supply.search-word', [
    "Look for '{value}'.",
    "The word is '{value}'.",
    "Search for '{value}'.",
    "Sorry, the keyword is '{value}'.",
  ]),
  number: defineIntent('supply.number', [
    'Use {value}.',
    'The number is {value}.',
    'Take {value}.',
    'Sorry, it should be {value}.',
  ]),
  numbers: defineIntent('supply.numbers', [
    'The numbers are {value}.',
    'Use {value}.',
    'Take these: {value}.',
    'Sorry, I meant these numbers: {value}.',
  ]),
  title: defineIntent('supply.title', [
    "Title it '{value}'.",
    "The title is '{value}'.",
    "Call it '{value}'.",
    "Sorry, the title should be '{value}'.",
  ]),
  topic: defineIntent('supply.topic', [
    'The one about the {value}.',
    'I mean the {value} one.',
    'The {value} ticket.',
    'Sorry, I meant the {value} one.',
  ]),
  priority: defineIntent('supply.priority', [
    'Make it {value}.',
    'Priority {value}.',
    'Set it to {value}.',
    'Sorry, I meant priority {value}.',
  ]),
  symbol: defineIntent('supply.symbol', [
    'The symbol is {value}.',
    'Check {value}.',
    'It is {value}.',
    'Sorry, I meant {value}.',
  ]),
  order: defineIntent('supply.order', [
    'Order {value}.',
    'The order id is {value}.',
    'It is order {value}.',
    'Sorry, that is order {value}.',
  ]),
  price: defineIntent('supply.price', [
    'At {value} per share.',
    'The price is {value}.',
    'Use a price of {value}.',
    'Sorry, the limit price is {value}.',
  ]),
  amount: defineIntent('supply.amount', [
    'Make it {value}.',
    'The amount is {value}.',
    'Use {value} dollars.',
    'Sorry, I meant {value} dollars.',
  ]),
  date: defineIntent('supply.date', [
    'On {value}.',
    'The date is {value}.',
    'For {value}.',
    'Sorry, the travel date is {value}.',
  ]),
  currency: defineIntent('supply.currency', [
    'Into {value}.',
    'The currency is {value}.',
    'I need {value}.',
    'Sorry, I meant {value}.',
  ]),
  booking: defineIntent('supply.booking', [
    'Booking {value}.',
    'The booking id is {value}.',
    'It is booking {value}.',
    'Sorry, that is booking {value}.',
  ]),
  doors: defineIntent('supply.doors', [
    'These doors: {value}.',
    'Lock {value}.',
    'The doors are {value}.',
    'Sorry, I meant the doors {value}.',
  ]),
  quantity: defineIntent('supply.quantity', [
    'Make it {value}.',
    'Use {value}.',
    'It should be {value}.',
    'Sorry, I meant {value}.',
  ]),
  address: defineIntent('supply.address', [
    'Go to {value}.',
    'The address is {value}.',
    'Navigate to {value}.',
    'Sorry, the destination is {value}.',
  ]),
  unit: defineIntent('supply.unit', [
    'In {value}.',
    'Convert it to {value}.',
    'The unit is {value}.',
    'Sorry, I meant {value}.',
  ]),
} as const;
